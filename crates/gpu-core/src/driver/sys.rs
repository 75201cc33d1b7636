//! The driver entry points the gpu-prims crates call, declared here with a plain integer
//! result.
//!
//! Why: cust_raw declares `CUresult` as a Rust enum of the codes it knew in 2022; the driver
//! returns newer ones (46 for an exclusive-process GPU already taken, 226, 721, 913, …), and an
//! enum holding a value outside its variants is undefined behaviour. These declarations link to
//! the same `libcuda` symbols (cust_raw's build script links the library), with the result as
//! a `c_int` that [`DriverCode`](crate::DriverCode) wraps. Handles and input enums are
//! cust_raw's types: we only ever pass valid values of them in, and the driver writes none
//! of them back except the handles.
//!
//! Call them through [`driver_call!`](crate::driver_call) or
//! [`driver_code!`](macro@crate::driver_code) (which the `fault-injection` feature can fail on
//! purpose); releases (free, destroy, unload) are called directly.
#![allow(non_snake_case, missing_docs)]

use std::os::raw::{c_char, c_int, c_uchar, c_uint, c_void};

pub use cust::sys::{
    CUcontext, CUdevice, CUdevice_attribute, CUdevice_attribute_enum, CUdeviceptr, CUevent,
    CUevent_flags, CUfunction, CUfunction_attribute, CUfunction_attribute_enum, CUjit_option,
    CUjit_option_enum, CUmodule, CUstream, CUstream_flags,
};

/// A driver result: any `int` the driver returns.
pub type CUresult = c_int;

extern "C" {
    pub fn cuInit(Flags: c_uint) -> CUresult;
    pub fn cuDriverGetVersion(driverVersion: *mut c_int) -> CUresult;
    pub fn cuDeviceGet(device: *mut CUdevice, ordinal: c_int) -> CUresult;
    pub fn cuDeviceGetCount(count: *mut c_int) -> CUresult;
    pub fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: CUdevice) -> CUresult;
    pub fn cuDeviceGetAttribute(
        pi: *mut c_int,
        attrib: CUdevice_attribute,
        dev: CUdevice,
    ) -> CUresult;
    pub fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: CUdevice) -> CUresult;
    pub fn cuDevicePrimaryCtxRetain(pctx: *mut CUcontext, dev: CUdevice) -> CUresult;
    pub fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) -> CUresult;
    pub fn cuCtxSetCurrent(ctx: CUcontext) -> CUresult;
    pub fn cuGetErrorName(error: CUresult, p_str: *mut *const c_char) -> CUresult;
    pub fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult;
    pub fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, bytesize: usize) -> CUresult;
    pub fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult;
    pub fn cuMemAllocHost_v2(pp: *mut *mut c_void, bytesize: usize) -> CUresult;
    pub fn cuMemFreeHost(p: *mut c_void) -> CUresult;
    pub fn cuMemcpyHtoDAsync_v2(
        dstDevice: CUdeviceptr,
        srcHost: *const c_void,
        ByteCount: usize,
        h_stream: CUstream,
    ) -> CUresult;
    pub fn cuMemcpyDtoHAsync_v2(
        dstHost: *mut c_void,
        srcDevice: CUdeviceptr,
        ByteCount: usize,
        h_stream: CUstream,
    ) -> CUresult;
    pub fn cuMemcpyDtoDAsync_v2(
        dstDevice: CUdeviceptr,
        srcDevice: CUdeviceptr,
        ByteCount: usize,
        h_stream: CUstream,
    ) -> CUresult;
    pub fn cuMemcpyPeerAsync(
        dstDevice: CUdeviceptr,
        dstContext: CUcontext,
        srcDevice: CUdeviceptr,
        srcContext: CUcontext,
        ByteCount: usize,
        hStream: CUstream,
    ) -> CUresult;
    pub fn cuDeviceCanAccessPeer(
        canAccessPeer: *mut c_int,
        dev: CUdevice,
        peerDev: CUdevice,
    ) -> CUresult;
    pub fn cuCtxEnablePeerAccess(peerContext: CUcontext, Flags: c_uint) -> CUresult;
    pub fn cuMemsetD8Async(
        dstDevice: CUdeviceptr,
        uc: c_uchar,
        N: usize,
        h_stream: CUstream,
    ) -> CUresult;
    pub fn cuStreamCreate(phStream: *mut CUstream, Flags: c_uint) -> CUresult;
    pub fn cuStreamSynchronize(h_stream: CUstream) -> CUresult;
    pub fn cuStreamQuery(h_stream: CUstream) -> CUresult;
    pub fn cuStreamWaitEvent(h_stream: CUstream, h_event: CUevent, Flags: c_uint) -> CUresult;
    pub fn cuPointerGetAttribute(
        data: *mut c_void,
        attribute: cust::sys::CUpointer_attribute,
        ptr: CUdeviceptr,
    ) -> CUresult;
    pub fn cuStreamDestroy_v2(h_stream: CUstream) -> CUresult;
    pub fn cuEventCreate(phEvent: *mut CUevent, Flags: c_uint) -> CUresult;
    pub fn cuEventRecord(h_event: CUevent, h_stream: CUstream) -> CUresult;
    pub fn cuEventSynchronize(h_event: CUevent) -> CUresult;
    pub fn cuEventElapsedTime(
        p_milliseconds: *mut f32,
        h_start: CUevent,
        h_end: CUevent,
    ) -> CUresult;
    pub fn cuEventDestroy_v2(h_event: CUevent) -> CUresult;
    pub fn cuModuleLoadDataEx(
        module: *mut CUmodule,
        image: *const c_void,
        numOptions: c_uint,
        options: *mut CUjit_option,
        optionValues: *mut *mut c_void,
    ) -> CUresult;
    pub fn cuModuleGetFunction(
        hfunc: *mut CUfunction,
        hmod: CUmodule,
        name: *const c_char,
    ) -> CUresult;
    pub fn cuModuleGetGlobal_v2(
        dptr: *mut CUdeviceptr,
        bytes: *mut usize,
        hmod: CUmodule,
        name: *const c_char,
    ) -> CUresult;
    pub fn cuModuleUnload(hmod: CUmodule) -> CUresult;
    pub fn cuFuncGetAttribute(
        pi: *mut c_int,
        attrib: CUfunction_attribute,
        hfunc: CUfunction,
    ) -> CUresult;
    pub fn cuFuncSetAttribute(
        hfunc: CUfunction,
        attrib: CUfunction_attribute,
        value: c_int,
    ) -> CUresult;
    pub fn cuOccupancyMaxActiveBlocksPerMultiprocessor(
        numBlocks: *mut c_int,
        func: CUfunction,
        blockSize: c_int,
        dynamicSMemSize: usize,
    ) -> CUresult;
    pub fn cuLaunchKernel(
        f: CUfunction,
        gridDimX: c_uint,
        gridDimY: c_uint,
        gridDimZ: c_uint,
        blockDimX: c_uint,
        blockDimY: c_uint,
        blockDimZ: c_uint,
        sharedMemBytes: c_uint,
        h_stream: CUstream,
        kernelParams: *mut *mut c_void,
        extra: *mut *mut c_void,
    ) -> CUresult;
}
