//===- AsmParser.cpp - AMDGCN assembly text to kernels and instructions ---===//
//
// Lines -> statements (labels, directives, instructions; `;`, `//` and
// `/* */` comments stripped) -> kernels. A kernel starts at the label of a
// function the text declares (`.type x,@function`, `.amdhsa_kernel x`,
// `.symbol: x.kd` in the metadata) and ends at `.Lfunc_end*`, its `.size`,
// the next kernel or the end of the text. Text that declares no function
// (hand-written snippets) starts a kernel at any non-local label that no
// branch of the text targets and the code before it cannot fall through to.
// Metadata and kernel-code blocks are skipped here; KernelReport.cpp reads
// them. Directives that make code the text does not spell out (macros,
// repetitions, conditionals, includes, data words among the instructions)
// are listed as unchecked: the file is then not proven clean.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/ISA/HazardCheck.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace mlir::rocdsl::isa {

namespace {

bool isIdentChar(char c) {
  return isAlnum(c) || c == '_' || c == '.' || c == '$';
}

/// Length of the label that starts `s` ("name:"), 0 if none.
size_t labelLength(StringRef s) {
  size_t i = 0;
  while (i < s.size() && isIdentChar(s[i]))
    ++i;
  if (i == 0 || i >= s.size() || s[i] != ':')
    return 0;
  if (i + 1 < s.size() && s[i + 1] == ':')
    return 0; // "::" separates dual instructions, not a label
  return i;
}

/// Removes comments from one line; `inBlock` carries an open `/*` across
/// lines. A `/* */` comment is dropped together with the rest of its line
/// unless only whitespace precedes it.
StringRef stripComment(StringRef line, bool &inBlock) {
  if (inBlock) {
    size_t end = line.find("*/");
    if (end == StringRef::npos)
      return StringRef();
    inBlock = false;
    line = line.substr(end + 2);
  }
  bool inString = false;
  for (size_t i = 0, e = line.size(); i < e; ++i) {
    char c = line[i];
    if (c == '"') {
      inString = !inString;
      continue;
    }
    if (inString)
      continue;
    if (c == ';')
      return line.take_front(i);
    if (c == '/' && i + 1 < e && line[i + 1] == '/')
      return line.take_front(i);
    if (c == '/' && i + 1 < e && line[i + 1] == '*') {
      size_t end = line.find("*/", i + 2);
      if (end == StringRef::npos) {
        inBlock = true;
        return line.take_front(i);
      }
      if (!line.take_front(i).trim().empty())
        return line.take_front(i);
      line = line.substr(end + 2);
      e = line.size();
      i = static_cast<size_t>(-1); // restart on what follows the comment
    }
  }
  return line;
}

/// The rest of the line that starts at `pos`, if only whitespace precedes
/// `pos` on its line.
std::optional<StringRef> directiveAt(StringRef text, size_t pos) {
  size_t lineStart = text.rfind('\n', pos);
  lineStart = lineStart == StringRef::npos ? 0 : lineStart + 1;
  if (!text.slice(lineStart, pos).trim().empty())
    return std::nullopt;
  size_t lineEnd = text.find('\n', pos);
  return text.slice(pos, lineEnd);
}

/// Names the text declares as functions or kernels.
void collectFunctionNames(StringRef text, StringSet<> &names) {
  bool dummy = false;
  for (size_t pos = text.find(".type"); pos != StringRef::npos;
       pos = text.find(".type", pos + 1)) {
    std::optional<StringRef> line = directiveAt(text, pos);
    if (!line)
      continue;
    StringRef args = stripComment(line->drop_front(5), dummy);
    dummy = false;
    if (args.empty() || !isSpace(args.front()))
      continue;
    auto [name, kind] = args.split(',');
    name = name.trim();
    if (!name.empty() &&
        (kind.contains("function") || kind.contains("STT_FUNC")))
      names.insert(name);
  }
  for (size_t pos = text.find(".amdhsa_kernel"); pos != StringRef::npos;
       pos = text.find(".amdhsa_kernel", pos + 1)) {
    std::optional<StringRef> line = directiveAt(text, pos);
    if (!line)
      continue;
    StringRef args = stripComment(line->drop_front(14), dummy);
    dummy = false;
    if (args.empty() || !isSpace(args.front()))
      continue;
    StringRef name = args.trim();
    if (!name.empty())
      names.insert(name);
  }
  for (size_t pos = text.find(".symbol:"); pos != StringRef::npos;
       pos = text.find(".symbol:", pos + 1)) {
    size_t lineEnd = text.find('\n', pos);
    StringRef value = text.slice(pos + 8, lineEnd).trim();
    value = value.trim("'\"");
    if (value.consume_back(".kd") && !value.empty())
      names.insert(value);
  }
}

/// The labels that branches of the text name, wherever they are.
void collectBranchTargets(StringRef text, StringSet<> &targets) {
  bool inBlock = false;
  for (StringRef rest = text; !rest.empty();) {
    auto [line, tail] = rest.split('\n');
    rest = tail;
    StringRef s = stripComment(line, inBlock).trim();
    while (size_t n = labelLength(s))
      s = s.drop_front(n + 1).ltrim();
    StringRef mnemonic = s.take_until([](char c) { return isSpace(c); });
    if (!mnemonic.starts_with_insensitive("s_branch") &&
        !mnemonic.starts_with_insensitive("s_cbranch"))
      continue;
    StringRef target = s.drop_front(mnemonic.size()).trim();
    target = target.take_until([](char c) { return !isIdentChar(c); });
    if (!target.empty())
      targets.insert(target);
  }
}

/// Directives whose effect is code the text does not spell out.
bool makesUnwrittenCode(StringRef directive) {
  return StringSwitch<bool>(directive.lower())
      .Cases({".macro", ".rept", ".irp", ".irpc", ".include", ".incbin"},
             true)
      .Cases({".if", ".ifdef", ".ifndef", ".ifb", ".ifnb", ".ifc", ".ifnc",
              ".ifeq", ".ifne", ".ifge", ".ifgt", ".ifle", ".iflt"},
             true)
      .Cases({".ifeqs", ".ifnes"}, true)
      .Default(false);
}

/// Directives that put raw words where instructions go.
bool isDataWord(StringRef directive) {
  return StringSwitch<bool>(directive.lower())
      .Cases({".long", ".word", ".int", ".short", ".hword", ".byte", ".quad",
              ".4byte", ".2byte", ".8byte", ".inst", ".value"},
             true)
      .Default(false);
}

class Parser {
public:
  Parser(StringRef text) : text(text) {}

  AsmModule run() {
    collectFunctionNames(text, functions);
    fallback = functions.empty();
    if (fallback)
      collectBranchTargets(text, branchTargets);
    unsigned lineNo = 0;
    bool inBlock = false;
    for (StringRef rest = text; !rest.empty();) {
      auto [line, tail] = rest.split('\n');
      rest = tail;
      handleLine(stripComment(line, inBlock).trim(), ++lineNo);
    }
    endKernel();
    return std::move(module);
  }

private:
  enum class Skip {
    None,
    Metadata,
    HsaMetadata,
    KernelCode,
    HsaKernel,
    Macro
  };

  void handleLine(StringRef s, unsigned lineNo) {
    if (s.empty())
      return;
    if (skip == Skip::Macro) {
      // A macro's body is code only where the macro is used (and reported
      // there as unchecked); it belongs to no kernel.
      if (s.starts_with_insensitive(".endm"))
        skip = Skip::None;
      return;
    }
    if (skip != Skip::None) {
      if (s.starts_with(".end_"))
        skip = Skip::None;
      return;
    }
    while (size_t n = labelLength(s)) {
      handleLabel(s.take_front(n));
      s = s.drop_front(n + 1).ltrim();
    }
    if (s.empty())
      return;
    if (s.front() == '.') {
      handleDirective(s, lineNo);
      return;
    }
    handleInstruction(s, lineNo);
  }

  void handleLabel(StringRef label) {
    bool local = label.starts_with(".");
    bool startsKernel = functions.contains(label);
    if (fallback && !local) {
      // Without declared functions, a global label starts a kernel unless
      // code can reach it: a branch anywhere, or falling through.
      Kernel *k = current();
      startsKernel =
          !branchTargets.contains(label) &&
          (!k || (!k->instructions.empty() &&
                  k->instructions.back().flow == Flow::Return));
    }
    if (startsKernel) {
      startKernel(label);
      return;
    }
    if (label.starts_with(".Lfunc_end")) {
      endKernel();
      return;
    }
    if (Kernel *k = current()) {
      k->labels.push_back({label, unsigned(k->instructions.size())});
      return;
    }
    if (!local)
      pendingName = label;
    pendingLabels.push_back(label);
  }

  void handleDirective(StringRef s, unsigned lineNo) {
    StringRef name = s.take_until([](char c) { return isSpace(c); });
    StringRef args = s.drop_front(name.size()).trim();
    if (makesUnwrittenCode(name) || (current() && isDataWord(name)))
      module.unchecked.push_back({lineNo, s.str()});
    if (name.equals_insensitive(".macro"))
      skip = Skip::Macro;
    if (name == ".amdgcn_target") {
      if (module.target.empty())
        module.target = args.trim('"').str();
    } else if (name == ".size") {
      StringRef sym = args.split(',').first.trim();
      if (Kernel *k = current(); k && sym == k->name)
        endKernel();
    } else if (name == ".amdgpu_metadata") {
      skip = Skip::Metadata;
    } else if (name == ".amd_amdgpu_hsa_metadata") {
      skip = Skip::HsaMetadata;
    } else if (name == ".amd_kernel_code_t") {
      skip = Skip::KernelCode;
    } else if (name == ".amdhsa_kernel") {
      skip = Skip::HsaKernel;
    }
  }

  void handleInstruction(StringRef s, unsigned lineNo) {
    if (!current()) {
      // Code outside any kernel: a kernel named after the label before it,
      // keeping the local labels in between.
      SmallVector<StringRef, 4> labels = std::move(pendingLabels);
      startKernel(pendingName.empty() ? StringRef("<anonymous>") : pendingName);
      for (StringRef label : labels)
        current()->labels.push_back({label, 0});
    }
    current()->instructions.push_back(parseStatement(s, lineNo));
  }

  /// The assembler takes mnemonics, registers and modifiers in any case;
  /// the checks compare lower-case names. Labels keep their case, so a
  /// branch target is taken from the text as written.
  Instruction parseStatement(StringRef s, unsigned lineNo) {
    if (llvm::none_of(s, isUpper))
      return parseInstruction(s, lineNo);
    auto copy = std::make_unique<char[]>(s.size());
    llvm::transform(s, copy.get(), toLower);
    StringRef lowered(copy.get(), s.size());
    module.loweredText.push_back(std::move(copy));
    Instruction inst = parseInstruction(lowered, lineNo);
    if (!inst.target.empty())
      inst.target = s.substr(inst.target.data() - lowered.data(),
                             inst.target.size());
    return inst;
  }

  Kernel *current() { return open ? &module.kernels.back() : nullptr; }

  void startKernel(StringRef name) {
    endKernel();
    module.kernels.emplace_back();
    module.kernels.back().name = name.str();
    // A branch to the kernel's own label loops back to its first
    // instruction.
    if (name != "<anonymous>")
      module.kernels.back().labels.push_back({name, 0});
    open = true;
  }

  void endKernel() {
    if (open && module.kernels.back().instructions.empty() &&
        module.kernels.back().name == "<anonymous>")
      module.kernels.pop_back();
    open = false;
    pendingLabels.clear();
    pendingName = StringRef();
  }

  StringRef text;
  AsmModule module;
  StringSet<> functions;
  StringSet<> branchTargets; ///< only without declared functions
  bool fallback = false;
  bool open = false;
  Skip skip = Skip::None;
  StringRef pendingName;
  SmallVector<StringRef, 4> pendingLabels;
};

} // namespace

AsmModule parseAssembly(StringRef text) { return Parser(text).run(); }

} // namespace mlir::rocdsl::isa
