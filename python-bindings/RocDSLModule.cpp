//===- RocDSLModule.cpp - the _rocdsl Python extension --------------------===//
//
// Binds librocdsl through rocdsl/API.h only (no LLVM or MLIR headers), so
// the same file builds here and on a GPU machine that has no LLVM: there it
// links the self-contained librocdsl.so of a ROCDSL_STATIC_LLVM build.
//
// Arguments of Kernel.launch, one per kernel argument:
//   numpy array                 host data (float32, float16, int32)
//   (numpy uint16 array, "bf16") bf16 host data
//   (address, dtype, shape)     device memory (what rocdsl.torch passes)
//   int                         i32 scalar, or a bare address where the
//                               kernel takes a pointer (source kernels)
//   float                       f32 scalar
//
//===----------------------------------------------------------------------===//
#include "rocdsl/API.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
namespace api = mlir::rocdsl::api;

namespace {

api::DType parseDType(const std::string &name) {
  api::DType dtype;
  if (!api::parseDType(name, dtype))
    throw py::value_error("unknown dtype '" + name + "'");
  return dtype;
}

size_t itemSize(api::DType dtype) {
  switch (dtype) {
  case api::DType::F32:
  case api::DType::I32:
    return 4;
  case api::DType::F16:
  case api::DType::BF16:
    return 2;
  case api::DType::I1:
    return 1;
  }
  return 1;
}

/// numpy float32/float16/int32 map to f32/f16/i32; bf16 travels as a uint16
/// array and must be named.
api::DType dtypeOf(const py::array &a, const std::string &name) {
  if (!name.empty()) {
    api::DType d = parseDType(name);
    if (size_t(a.itemsize()) != itemSize(d))
      throw py::value_error("array item size " + std::to_string(a.itemsize()) +
                            " does not match dtype " + name);
    return d;
  }
  if (a.dtype().is(py::dtype::of<float>()))
    return api::DType::F32;
  if (a.dtype().kind() == 'f' && a.itemsize() == 2)
    return api::DType::F16;
  if (a.dtype().is(py::dtype::of<int32_t>()))
    return api::DType::I32;
  throw py::value_error("unsupported array dtype " +
                        std::string(py::str(a.dtype())) +
                        " (float32, float16, int32, or (uint16 array, 'bf16'))");
}

void fromArray(py::array a, const std::string &dtypeName, api::Arg &arg) {
  if (a.ndim() > api::kMaxRank)
    throw py::value_error("arrays of rank > 8 are not supported");
  if (!a.writeable())
    throw py::value_error("read-only arrays are not supported");
  arg.kind = api::ArgKind::Tensor;
  arg.dtype = dtypeOf(a, dtypeName);
  arg.data = a.mutable_data();
  arg.rank = int(a.ndim());
  for (py::ssize_t d = 0; d < a.ndim(); ++d) {
    arg.shape[d] = a.shape(d);
    arg.strides[d] = a.strides(d) / a.itemsize();
  }
}

/// (address, dtype, shape[, strides]) describing device memory.
void fromDeviceTuple(const py::tuple &t, api::Arg &arg) {
  if (t.size() < 3 || t.size() > 4)
    throw py::value_error("device arguments are (address, dtype, shape"
                          "[, strides])");
  arg.kind = api::ArgKind::Tensor;
  arg.data = reinterpret_cast<void *>(t[0].cast<uintptr_t>());
  arg.dtype = parseDType(t[1].cast<std::string>());
  auto shape = t[2].cast<std::vector<int64_t>>();
  if (shape.size() > size_t(api::kMaxRank))
    throw py::value_error("arrays of rank > 8 are not supported");
  arg.rank = int(shape.size());
  std::vector<int64_t> strides;
  if (t.size() == 4)
    strides = t[3].cast<std::vector<int64_t>>();
  if (strides.empty()) { // contiguous
    strides.assign(shape.size(), 1);
    for (int d = int(shape.size()) - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * shape[d + 1];
  }
  if (strides.size() != shape.size())
    throw py::value_error("strides and shape differ in rank");
  for (size_t d = 0; d < shape.size(); ++d) {
    arg.shape[d] = shape[d];
    arg.strides[d] = strides[d];
  }
}

class PyKernel {
public:
  explicit PyKernel(std::unique_ptr<api::Kernel> kernel)
      : kernel(std::move(kernel)) {}

  void launch(py::sequence args, py::object grid, py::object stream,
              py::object checkFinite) {
    api::LaunchOptions options;
    if (!checkFinite.is_none())
      options.checkFinite = checkFinite.cast<bool>() ? 1 : 0;
    const auto &sig = kernel->args();
    size_t n = size_t(py::len(args));
    if (n != sig.size())
      throw py::value_error(kernel->name() + " takes " +
                            std::to_string(sig.size()) + " arguments, got " +
                            std::to_string(n));
    // Per thread: the GIL is released during the launch, and other threads
    // may launch this same kernel object meanwhile.
    thread_local std::vector<api::Arg> values;
    values.assign(n, api::Arg());
    for (size_t i = 0; i < n; ++i) {
      py::handle h = args[i];
      api::Arg &arg = values[i];
      if (py::isinstance<py::array>(h)) {
        fromArray(py::reinterpret_borrow<py::array>(h), "", arg);
      } else if (py::isinstance<py::tuple>(h)) {
        auto t = py::reinterpret_borrow<py::tuple>(h);
        if (t.size() == 2 && py::isinstance<py::array>(t[0]))
          fromArray(t[0].cast<py::array>(), t[1].cast<std::string>(), arg);
        else
          fromDeviceTuple(t, arg);
      } else if (py::isinstance<py::bool_>(h)) {
        throw py::value_error("argument " + std::to_string(i) +
                              ": bool arguments are not supported");
      } else if (py::isinstance<py::int_>(h)) {
        if (sig[i].kind == api::ArgKind::Tensor) {
          arg.kind = api::ArgKind::Tensor;
          arg.dtype = sig[i].dtype; // a bare address: the caller vouches
          arg.data = reinterpret_cast<void *>(h.cast<uintptr_t>());
        } else {
          arg.kind = api::ArgKind::Int32;
          arg.i32 = h.cast<int32_t>();
        }
      } else if (py::isinstance<py::float_>(h)) {
        arg.kind = api::ArgKind::Float32;
        arg.f32 = h.cast<float>();
      } else {
        throw py::value_error("argument " + std::to_string(i) +
                              ": unsupported " +
                              std::string(py::str(py::type::handle_of(h))));
      }
    }
    uint32_t g[3] = {1, 1, 1};
    const uint32_t *gridPtr = nullptr;
    if (!grid.is_none()) {
      auto dims = grid.cast<std::vector<uint32_t>>();
      if (dims.empty() || dims.size() > 3)
        throw py::value_error("the grid has 1 to 3 dimensions");
      for (size_t d = 0; d < dims.size(); ++d)
        g[d] = dims[d];
      gridPtr = g;
    }
    bool wait = stream.is_none();
    void *streamPtr =
        wait ? nullptr : reinterpret_cast<void *>(stream.cast<uintptr_t>());
    std::string error;
    bool ok;
    api::LaunchInfo launched;
    {
      py::gil_scoped_release release;
      ok = kernel->launch(values.data(), values.size(), gridPtr, streamPtr,
                          wait, launched, error, options);
    }
    if (!ok)
      throw py::value_error(error);
    info = launched; // under the GIL again: the last launch's record
  }

  py::list argInfo() const {
    py::list out;
    for (const api::ArgInfo &a : kernel->args()) {
      py::object expected = py::none();
      if (a.hasExpectedInt)
        expected = py::int_(a.expectedInt);
      const char *kind = a.kind == api::ArgKind::Tensor  ? "tensor"
                         : a.kind == api::ArgKind::Int32 ? "i32"
                                                         : "f32";
      out.append(py::make_tuple(a.name, kind, api::dtypeName(a.dtype),
                                a.shape, a.isOutput, expected));
    }
    return out;
  }

  std::vector<std::string> argTypes() const {
    std::vector<std::string> out;
    for (const api::ArgInfo &a : kernel->args())
      out.push_back(a.kind == api::ArgKind::Tensor
                        ? std::string("ptr<") + api::dtypeName(a.dtype) + ">"
                        : api::dtypeName(a.dtype));
    return out;
  }

  std::unique_ptr<api::Kernel> kernel;
  api::LaunchInfo info;
};

std::unique_ptr<PyKernel> builtin(const std::string &name,
                                  const std::vector<std::string> &defs,
                                  const std::string &device,
                                  const std::string &chip) {
  std::string error;
  auto k = api::Kernel::builtin(name, defs, device, chip, error);
  if (!k)
    throw py::value_error(error);
  return std::make_unique<PyKernel>(std::move(k));
}

std::unique_ptr<PyKernel> source(const std::string &text,
                                 const std::string &name,
                                 const std::string &device,
                                 const std::string &chip) {
  std::string error;
  auto k = api::Kernel::fromSource(text, name, device, chip, error);
  if (!k)
    throw py::value_error(error);
  return std::make_unique<PyKernel>(std::move(k));
}

/// Device memory owned by Python (rocdsl.DeviceArray keeps one).
class PyDeviceBuffer {
public:
  PyDeviceBuffer(const std::string &device, size_t bytes) {
    std::string error;
    buffer = api::DeviceBuffer::allocate(device, bytes, error);
    if (!buffer)
      throw py::value_error(error);
  }
  uintptr_t address() const { return reinterpret_cast<uintptr_t>(buffer->data()); }
  size_t size() const { return buffer->size(); }
  const std::string &device() const { return buffer->device(); }

  /// Copies a C-contiguous array in, at byte `offset`.
  void copyFrom(const py::array &a, size_t offset) {
    checkArray(a, offset, "copy_from");
    std::string error;
    bool ok;
    {
      py::gil_scoped_release release;
      ok = buffer->copyFromHost(a.data(), size_t(a.nbytes()), offset, error);
    }
    if (!ok)
      throw py::value_error(error);
  }
  /// Copies the bytes at `offset` out into a writable C-contiguous array.
  void copyTo(py::array a, size_t offset) const {
    checkArray(a, offset, "copy_to");
    if (!a.writeable())
      throw py::value_error("copy_to: the array is read-only");
    std::string error;
    bool ok;
    void *dst = a.mutable_data();
    {
      py::gil_scoped_release release;
      ok = buffer->copyToHost(dst, size_t(a.nbytes()), offset, error);
    }
    if (!ok)
      throw py::value_error(error);
  }

private:
  void checkArray(const py::array &a, size_t offset, const char *what) const {
    if (!(a.flags() & py::array::c_style))
      throw py::value_error(std::string(what) +
                            ": the array must be C-contiguous");
    if (offset > size() || size_t(a.nbytes()) > size() - offset)
      throw py::value_error(std::string(what) + ": " +
                            std::to_string(a.nbytes()) + " bytes at offset " +
                            std::to_string(offset) +
                            " do not fit the device buffer of " +
                            std::to_string(size()));
  }
  std::unique_ptr<api::DeviceBuffer> buffer;
};

/// A compile's artifacts as a dict (rocdsl.Compiled wraps it).
py::dict compiledDict(const api::Compiled &c) {
  py::dict d;
  d["chip"] = c.chip;
  d["mlir"] = c.mlir;
  d["lowered"] = c.lowered;
  d["llvm_ir"] = c.llvmIR;
  d["asm"] = c.assembly;
  d["binary"] = py::bytes(c.binary);
  d["store_form"] = c.storeForm;
  d["schedule"] = c.schedule;
  py::list stats;
  for (const api::KernelStats &k : c.stats) {
    py::dict s;
    s["kernel"] = k.name;
    s["vgpr"] = k.vgprs;
    s["agpr"] = k.agprs;
    s["sgpr"] = k.sgprs;
    s["vgpr_spill"] = k.vgprSpills;
    s["sgpr_spill"] = k.sgprSpills;
    s["scratch_bytes"] = k.scratchBytes;
    s["lds_bytes"] = k.ldsBytes;
    s["waves_per_simd"] = k.wavesPerSimd;
    s["max_workgroup_size"] = k.maxWorkgroupSize;
    s["wavefront_size"] = k.wavefrontSize;
    stats.append(s);
  }
  d["stats"] = stats;
  d["hazards"] = c.hazards;
  d["rejected_hazards"] = c.rejectedHazards;
  return d;
}

template <typename Fn> py::dict compileWith(Fn &&fn) {
  api::Compiled out;
  std::string error;
  bool ok;
  {
    py::gil_scoped_release release;
    ok = fn(out, error);
  }
  if (!ok)
    throw py::value_error(error);
  return compiledDict(out);
}

py::list listKernels() {
  py::list out;
  for (const api::KernelInfo &spec : api::listKernels()) {
    py::dict k;
    k["name"] = spec.name;
    k["summary"] = spec.summary;
    py::list params;
    for (const api::ParamInfo &p : spec.params)
      params.append(py::make_tuple(p.name, p.defaultValue, p.help));
    k["params"] = params;
    out.append(k);
  }
  return out;
}

} // namespace

PYBIND11_MODULE(_rocdsl, m) {
  m.doc() = "ROCDSL runtime: built-in and traced kernels on host, hip and "
            "cuda devices";
  py::class_<PyKernel>(m, "Kernel")
      .def("launch", &PyKernel::launch, py::arg("args"),
           py::arg("grid") = py::none(), py::arg("stream") = py::none(),
           py::arg("check_finite") = py::none(),
           "Launches (see the module's argument conventions). Without a "
           "stream the launch waits and is timed; with one (a CUstream as "
           "an int, 0 for the default stream) it is queued and returns. "
           "check_finite=True scans the outputs for NaN/Inf afterwards "
           "(ValueError naming the first bad element), False never does, "
           "None follows ROCDSL_CHECK_FINITE.")
      .def_property_readonly("name",
                             [](const PyKernel &k) { return k.kernel->name(); })
      .def_property_readonly("args", &PyKernel::argInfo,
                             "(name, kind, dtype, shape, is_output, "
                             "planned int or None) per argument")
      .def_property_readonly("arg_types", &PyKernel::argTypes)
      .def_property_readonly(
          "grid",
          [](const PyKernel &k) {
            auto g = k.kernel->grid();
            return py::make_tuple(g[0], g[1], g[2]);
          })
      .def_property_readonly(
          "params", [](const PyKernel &k) { return k.kernel->params(); })
      .def_property_readonly("launcher_id",
                             [](const PyKernel &k) { return k.info.launcher; })
      .def_property_readonly(
          "last_tier", [](const PyKernel &k) { return std::string(k.info.tier); })
      .def_property_readonly(
          "last_compile_ms",
          [](const PyKernel &k) { return k.info.compileMilliseconds; })
      .def_property_readonly("last_kernel_us", [](const PyKernel &k) {
        return k.info.kernelMicroseconds;
      });
  m.def("builtin", &builtin, py::arg("kernel"), py::arg("definitions"),
        py::arg("device") = "host", py::arg("chip") = "",
        "A built-in kernel specialized by NAME=VALUE definitions (ValueError "
        "names a bad definition).");
  m.def("SourceKernel", &source, py::arg("source"), py::arg("kernel"),
        py::arg("device") = "host", py::arg("chip") = "",
        "A kernel from rocdsl IR text (errors carry the IR's locations).");
  py::class_<PyDeviceBuffer>(m, "DeviceBuffer")
      .def(py::init<const std::string &, size_t>(), py::arg("device"),
           py::arg("nbytes"),
           "nbytes of memory on device (hip, hip:N, cuda, cuda:N, host), "
           "freed with the object; ValueError names what is missing.")
      .def_property_readonly("address", &PyDeviceBuffer::address)
      .def_property_readonly("nbytes", &PyDeviceBuffer::size)
      .def_property_readonly("device", &PyDeviceBuffer::device)
      .def("copy_from", &PyDeviceBuffer::copyFrom, py::arg("array"),
           py::arg("offset") = 0,
           "Copies a C-contiguous array in at byte offset.")
      .def("copy_to", &PyDeviceBuffer::copyTo, py::arg("array"),
           py::arg("offset") = 0,
           "Copies the bytes at offset into a writable C-contiguous array.");
  m.def(
      "compile_builtin",
      [](const std::string &name, const std::vector<std::string> &defs,
         const std::string &chip) {
        return compileWith([&](api::Compiled &out, std::string &error) {
          return api::compileBuiltin(name, defs, chip, out, error);
        });
      },
      py::arg("kernel"), py::arg("definitions"), py::arg("chip"),
      "Compiles a built-in kernel for a chip without running it: a dict of "
      "mlir, lowered, llvm_ir, asm, binary, stats, hazards.");
  m.def(
      "compile_source",
      [](const std::string &text, const std::string &kernel,
         const std::string &chip) {
        return compileWith([&](api::Compiled &out, std::string &error) {
          return api::compileSource(text, kernel, chip, out, error);
        });
      },
      py::arg("source"), py::arg("kernel"), py::arg("chip"),
      "Compiles rocdsl IR text for a chip without running it.");
  m.def(
      "normalize_device",
      [](const std::string &device) {
        std::string error;
        std::string name = api::normalizeDevice(device, error);
        if (name.empty())
          throw py::value_error(error);
        return name;
      },
      py::arg("device"), "'hip' for 'hip:0'; ValueError for a bad name.");
  m.def(
      "describe_device",
      [](const std::string &device) {
        std::string error;
        std::string text = api::describeDevice(device, error);
        if (text.empty())
          throw py::value_error(error);
        return text;
      },
      py::arg("device"), "One line naming the device, its chip and library.");
  m.def("max_tensor_bytes", &api::maxTensorBytes,
        "Bytes a kernel can address in one tensor (32-bit offsets).");
  m.def(
      "cache_directory",
      []() -> py::object {
        std::string dir = api::cacheDirectory();
        return dir.empty() ? py::none() : py::object(py::str(dir));
      },
      "ROCDSL's cache directory from the environment (ROCDSL_CACHE_DIR, "
      "XDG_CACHE_HOME, HOME), or None when none is set.");
  m.def("device_count", &api::deviceCount, py::arg("kind"),
        "Devices of a kind (hip, cuda) this process sees.");
  m.def("list_kernels", &listKernels,
        "Built-in kernels: name, summary, parameters (name, default, help).");
  m.def(
      "device_available",
      [](const std::string &device) {
        std::string why;
        bool ok = api::deviceAvailable(device, why);
        return py::make_tuple(ok, why);
      },
      py::arg("device"), "(available, why not) for host, hip or cuda.");
  m.def(
      "log",
      [](const std::string &level, const std::string &message) {
        if (!api::logMessage(level, message))
          throw py::value_error("unknown log level '" + level +
                                "' (warning, info, debug)");
      },
      py::arg("level"), py::arg("message"),
      "Writes `message` to ROCDSL's log (stderr, 'rocdsl: LEVEL: ...') when "
      "ROCDSL_LOG lets LEVEL through.");
  m.def("wave_size", &api::waveSize, py::arg("device"),
        "Lanes per wave the device's layouts use.");
  m.def("max_workgroup_lanes", &api::maxWorkgroupLanes, py::arg("device"),
        "Lanes one workgroup (thread block) may hold on the device's chip "
        "(the chip table's maxWorkgroupSize); 0 for an unknown device.");
  m.def("default_layout", &api::defaultLayout, py::arg("shape"),
        py::arg("element_bits"), py::arg("num_warps"), py::arg("wave_size"),
        py::arg("min_per_lane") = 1,
        "The default #rocdsl.blocked layout for a tile, as text "
        "(min_per_lane: the widest explicit vec of its accesses).");
  m.def("cache_stats", []() {
    api::CacheStats s = api::cacheStats();
    py::dict d;
    d["memory_hits"] = s.memoryHits;
    d["disk_hits"] = s.diskHits;
    d["compiles"] = s.compiles;
    return d;
  });
  m.attr("__version__") = api::version();
}
