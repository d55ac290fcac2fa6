//===- Decode.h - printed AMDGCN instructions into Inst ---------*- C++ -*-===//
#ifndef ROCDSL_LIB_EMULATOR_DECODE_H
#define ROCDSL_LIB_EMULATOR_DECODE_H

#include "Machine.h"

namespace mlir::rocdsl::emu {

/// High halves of the flat apertures src_shared_base/src_private_base
/// return: flat addresses in [base, base + 4 GiB) are LDS or scratch.
constexpr uint64_t kSharedApertureHi = 0x1000000000000ull;
constexpr uint64_t kPrivateApertureHi = 0x2000000000000ull;

/// Decodes one printed instruction ("v_add_f32_e32 v0, v1, v2") into `inst`
/// (handler, operands, modifiers). False with `error` for an instruction the
/// emulator does not implement or cannot read.
bool decodeText(llvm::StringRef text, Inst &inst, std::string &error);

bool parseOperand(llvm::StringRef text, const OpInfo &info, Operand &op,
                  std::string &error);

} // namespace mlir::rocdsl::emu

#endif
