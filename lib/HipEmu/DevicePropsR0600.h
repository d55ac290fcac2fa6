//===- DevicePropsR0600.h - HIP 6's hipDeviceProp_t layout ------*- C++ -*-===//
//
// Programs built against HIP 6 headers call hipGetDevicePropertiesR0600
// with the HIP 6 structure; the installed HIP 5 headers do not declare it,
// so its layout is written out here, field by field in ROCm 6's order
// (runs of int fields as arrays, which lay out identically). Only the
// fields the emulated device reports are named.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_LIB_HIPEMU_DEVICEPROPSR0600_H
#define ROCDSL_LIB_HIPEMU_DEVICEPROPSR0600_H

#include <cstddef>

namespace mlir::rocdsl::hipemu {

struct DevicePropsR0600 {
  char name[256];
  char uuid[16];
  char luid[8];
  unsigned luidDeviceNodeMask;
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  size_t texturePitchAlignment;
  int deviceOverlap;
  int multiProcessorCount;
  // kernelExecTimeoutEnabled, integrated, canMapHostMemory, computeMode,
  // maxTexture1D, maxTexture1DMipmap, maxTexture1DLinear.
  int ints1[7];
  // maxTexture2D[2], maxTexture2DMipmap[2], maxTexture2DLinear[3],
  // maxTexture2DGather[2], maxTexture3D[3], maxTexture3DAlt[3],
  // maxTextureCubemap, maxTexture1DLayered[2], maxTexture2DLayered[3],
  // maxTextureCubemapLayered[2], maxSurface1D, maxSurface2D[2],
  // maxSurface3D[3], maxSurface1DLayered[2], maxSurface2DLayered[3],
  // maxSurfaceCubemap, maxSurfaceCubemapLayered[2].
  int textureLimits[2 + 2 + 3 + 2 + 3 + 3 + 1 + 2 + 3 + 2 + 1 + 2 + 3 + 2 +
                    3 + 1 + 2];
  size_t surfaceAlignment;
  int concurrentKernels;
  // ECCEnabled, pciBusID, pciDeviceID, pciDomainID, tccDriver,
  // asyncEngineCount, unifiedAddressing, memoryClockRate, memoryBusWidth,
  // l2CacheSize, persistingL2CacheMaxSize.
  int ints2[11];
  int maxThreadsPerMultiProcessor;
  // streamPrioritiesSupported, globalL1CacheSupported,
  // localL1CacheSupported.
  int ints3[3];
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  // managedMemory, isMultiGpuBoard, multiGpuBoardGroupID,
  // hostNativeAtomicSupported, singleToDoublePrecisionPerfRatio,
  // pageableMemoryAccess, concurrentManagedAccess,
  // computePreemptionSupported, canUseHostPointerForRegisteredMem,
  // cooperativeLaunch, cooperativeMultiDeviceLaunch.
  int ints4[11];
  size_t sharedMemPerBlockOptin;
  // pageableMemoryAccessUsesHostPageTables, directManagedMemAccessFromHost,
  // maxBlocksPerMultiProcessor, accessPolicyMaxWindowSize.
  int ints5[4];
  size_t reservedSharedMemPerBlock;
  // hostRegisterSupported, sparseHipArraySupported,
  // hostRegisterReadOnlySupported, timelineSemaphoreInteropSupported,
  // memoryPoolsSupported, gpuDirectRDMASupported,
  // gpuDirectRDMAFlushWritesOptions, gpuDirectRDMAWritesOrdering,
  // memoryPoolSupportedHandleTypes, deferredMappingHipArraySupported,
  // ipcEventSupported, clusterLaunch, unifiedFunctionPointers.
  int ints6[13];
  int reserved[63];
  int hipReserved[32];
  char gcnArchName[256];
  size_t maxSharedMemoryPerMultiProcessor;
  int clockInstructionRate;
  unsigned arch; // hipDeviceArch_t: bit fields in one 32-bit word
  unsigned *hdpMemFlushCntl;
  unsigned *hdpRegFlushCntl;
  // cooperativeMultiDeviceUnmatched{Func,GridDim,BlockDim,SharedMem},
  // isLargeBar, asicRevision.
  int ints7[6];
};

// ROCm 6's sizeof, alignof and the offsets programs rely on most.
static_assert(sizeof(DevicePropsR0600) == 1472, "hipDeviceProp_tR0600 is 1472 bytes");
static_assert(alignof(DevicePropsR0600) == 8, "hipDeviceProp_tR0600 is 8-aligned");
static_assert(offsetof(DevicePropsR0600, totalGlobalMem) == 288,
              "totalGlobalMem is at 288");
static_assert(offsetof(DevicePropsR0600, gcnArchName) == 1160,
              "gcnArchName is at 1160");

} // namespace mlir::rocdsl::hipemu

#endif
