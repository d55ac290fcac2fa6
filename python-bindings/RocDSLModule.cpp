//===- RocDSLModule.cpp - the _rocdsl Python extension --------------------===//
//
// Binds the one core runtime (no second copy of the dialect or registries):
// built-in kernels are run through BuiltinKernel, so Python gets the same
// validation, launcher cache and devices as C++.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/Runtime/BuiltinKernel.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace mlir;
using namespace mlir::rocdsl;

namespace {

[[noreturn]] void raise(llvm::Error err) {
  throw py::value_error(llvm::toString(std::move(err)));
}

/// numpy float32/float16 map to f32/f16; bf16 travels as uint16 arrays and
/// must be named: pass (array, "bf16").
dsl::DType dtypeOf(const py::array &a, const std::string &name) {
  if (!name.empty()) {
    auto d = dsl::parseDType(name);
    if (!d)
      throw py::value_error("unknown dtype '" + name + "'");
    if (a.itemsize() != dsl::bitWidth(*d) / 8)
      throw py::value_error("array item size " + std::to_string(a.itemsize()) +
                            " does not match dtype " + name);
    return *d;
  }
  if (a.dtype().is(py::dtype::of<float>()))
    return dsl::DType::F32;
  if (a.dtype().kind() == 'f' && a.itemsize() == 2)
    return dsl::DType::F16;
  if (a.dtype().is(py::dtype::of<int32_t>()))
    return dsl::DType::I32;
  throw py::value_error("unsupported array dtype " +
                        std::string(py::str(a.dtype())) +
                        " (float32, float16, int32, or (uint16 array, 'bf16'))");
}

TensorArg tensorOf(py::array a, const std::string &dtypeName) {
  TensorArg t;
  t.data = a.mutable_data();
  t.dtype = dtypeOf(a, dtypeName);
  for (py::ssize_t d = 0; d < a.ndim(); ++d) {
    t.shape.push_back(a.shape(d));
    t.strides.push_back(a.strides(d) / a.itemsize());
  }
  return t;
}

py::dict run(const std::string &name, const std::vector<std::string> &defs,
             py::list args, const std::string &device) {
  auto kind = parseDeviceKind(device);
  if (!kind)
    throw py::value_error("unknown device '" + device + "'");
  auto kernel = BuiltinKernel::create(name, defs, *kind);
  if (!kernel)
    raise(kernel.takeError());
  std::vector<ArgValue> values;
  for (py::handle h : args) {
    if (py::isinstance<py::tuple>(h)) {
      auto pair = h.cast<py::tuple>();
      values.push_back(ArgValue::of(
          tensorOf(pair[0].cast<py::array>(), pair[1].cast<std::string>())));
    } else if (py::isinstance<py::array>(h)) {
      values.push_back(ArgValue::of(tensorOf(h.cast<py::array>(), "")));
    } else if (py::isinstance<py::bool_>(h)) {
      throw py::value_error("bool arguments are not supported");
    } else if (py::isinstance<py::int_>(h)) {
      values.push_back(ArgValue::ofI32(h.cast<int32_t>()));
    } else if (py::isinstance<py::float_>(h)) {
      values.push_back(ArgValue::ofF32(h.cast<float>()));
    } else {
      throw py::value_error("unsupported argument " +
                            std::string(py::str(h.get_type())));
    }
  }
  RunInfo info;
  {
    py::gil_scoped_release release;
    if (llvm::Error err = (*kernel)->run(values, info)) {
      py::gil_scoped_acquire acquire;
      raise(std::move(err));
    }
  }
  py::dict result;
  result["tier"] = getCacheTierName(info.tier).str();
  result["compile_ms"] = info.compileMilliseconds;
  result["kernel_us"] = info.kernelMicroseconds;
  result["launcher"] = reinterpret_cast<uintptr_t>(info.launcher);
  return result;
}

py::list listKernels() {
  py::list out;
  for (const KernelSpec &spec : getBuiltinKernels()) {
    py::dict k;
    k["name"] = spec.name;
    k["summary"] = spec.summary;
    py::list params;
    for (const KernelParamSpec &p : spec.params)
      params.append(py::make_tuple(p.name, p.defaultValue, p.help));
    k["params"] = params;
    out.append(k);
  }
  return out;
}

py::list plan(const std::string &name, const std::vector<std::string> &defs) {
  auto kernel = BuiltinKernel::create(name, defs, DeviceKind::Host);
  if (!kernel)
    raise(kernel.takeError());
  py::list args;
  for (const ArgSignature &a : (*kernel)->getPlan().args)
    args.append(py::make_tuple(a.name, dsl::toString(a.dtype).str(), a.shape,
                               a.isOutput));
  return args;
}

} // namespace

PYBIND11_MODULE(_rocdsl, m) {
  m.doc() = "ROCDSL runtime: built-in kernels on host, hip and cuda devices";
  m.def("list_kernels", &listKernels,
        "Built-in kernels: name, summary, parameters (name, default, help).");
  m.def("plan", &plan, py::arg("kernel"), py::arg("definitions"),
        "Arguments a specialization expects: (name, dtype, shape, is_output).");
  m.def("run", &run, py::arg("kernel"), py::arg("definitions"),
        py::arg("args"), py::arg("device") = "host",
        "Runs a built-in kernel; arrays are validated against the "
        "specialization (ValueError names the argument). Returns the cache "
        "tier, compile and kernel times, and the launcher's identity.");
}
