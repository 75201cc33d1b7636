//! Embedded PTX modules, loaded once per context, and their kernels.

use std::collections::HashMap;
use std::ffi::{c_void, CString};

use cust::sys as cu;

use crate::device::Gpu;
use crate::driver::{check, error_name};
use crate::error::{Error, Result};
use crate::launch::LaunchConfig;
use crate::stream::Stream;

/// PTX text embedded in a crate, e.g.
/// `Ptx::new("gpu-reduce/reduce", include_str!("ptx/reduce.ptx"))`.
#[derive(Debug, Clone, Copy)]
pub struct Ptx {
    /// Unique module name (crate/file); the cache key.
    pub name: &'static str,
    /// The PTX source.
    pub text: &'static str,
}

impl Ptx {
    /// Names embedded PTX text.
    pub const fn new(name: &'static str, text: &'static str) -> Self {
        Ptx { name, text }
    }
}

#[derive(Default)]
pub(crate) struct LoadedModules {
    modules: HashMap<&'static str, cu::CUmodule>,
    functions: HashMap<(&'static str, String), cu::CUfunction>,
}

impl LoadedModules {
    /// The loaded module for `ptx`, loading it on first use (context current).
    fn module(&mut self, ptx: &Ptx) -> Result<cu::CUmodule> {
        if let Some(&m) = self.modules.get(ptx.name) {
            return Ok(m);
        }
        let m = load_ptx(ptx)?;
        self.modules.insert(ptx.name, m);
        Ok(m)
    }

    pub(crate) fn unload_all(&mut self) {
        self.functions.clear();
        for (_, m) in self.modules.drain() {
            // SAFETY: module loaded by `load`, unloaded once, context current (caller binds).
            unsafe {
                cu::cuModuleUnload(m);
            }
        }
    }
}

/// A kernel entry point of a loaded module.
///
/// Holding a `Kernel` keeps its `Gpu` (and so the module) alive.
#[derive(Clone)]
pub struct Kernel {
    raw: cu::CUfunction,
    name: String,
    gpu: Gpu,
}

// SAFETY: a CUfunction is an immutable driver handle usable from any thread.
unsafe impl Send for Kernel {}
// SAFETY: as above.
unsafe impl Sync for Kernel {}

impl Gpu {
    /// The kernel `name` of the embedded module `ptx`, loading the module on first use.
    ///
    /// Modules are cached per context: each loads once however many times this is called.
    /// A module the driver's JIT rejects gives [`Error::PtxLoad`] with the JIT log.
    pub fn kernel(&self, ptx: &Ptx, name: &str) -> Result<Kernel> {
        self.bind()?;
        let mut cache = self.inner.modules.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(&raw) = cache.functions.get(&(ptx.name, name.to_string())) {
            return Ok(Kernel {
                raw,
                name: name.to_string(),
                gpu: self.clone(),
            });
        }
        let module = cache.module(ptx)?;
        let cname = CString::new(name).map_err(|_| Error::invalid("name", "contains NUL"))?;
        let mut raw = std::ptr::null_mut();
        // SAFETY: valid module; NUL-terminated name; out-pointer to a local.
        check("cuModuleGetFunction", unsafe {
            cu::cuModuleGetFunction(&mut raw, module, cname.as_ptr())
        })
        .map_err(|e| match e {
            Error::Cuda { call, error, code } => Error::Cuda {
                call,
                error: format!(
                    "{error}: kernel `{name}` not found in module `{}`",
                    ptx.name
                ),
                code,
            },
            other => other,
        })?;
        cache.functions.insert((ptx.name, name.to_string()), raw);
        Ok(Kernel {
            raw,
            name: name.to_string(),
            gpu: self.clone(),
        })
    }

    /// Device address and size of the `__constant__` or `__device__` variable `name` in `ptx`.
    pub fn module_global(&self, ptx: &Ptx, name: &str) -> Result<(u64, usize)> {
        self.bind()?;
        let mut cache = self.inner.modules.lock().unwrap_or_else(|p| p.into_inner());
        let module = cache.module(ptx)?;
        let cname = CString::new(name).map_err(|_| Error::invalid("name", "contains NUL"))?;
        let (mut ptr, mut size) = (0u64, 0usize);
        // SAFETY: valid module; NUL-terminated name; out-pointers to locals.
        check("cuModuleGetGlobal", unsafe {
            cu::cuModuleGetGlobal_v2(&mut ptr, &mut size, module, cname.as_ptr())
        })?;
        Ok((ptr, size))
    }
}

fn load_ptx(ptx: &Ptx) -> Result<cu::CUmodule> {
    let text = CString::new(ptx.text).map_err(|_| Error::invalid("ptx", "contains NUL"))?;
    const LOG: usize = 16 * 1024;
    let mut error_log = vec![0u8; LOG];
    let mut info_log = vec![0u8; LOG];
    use cu::CUjit_option_enum as J;
    let mut options = [
        J::CU_JIT_ERROR_LOG_BUFFER,
        J::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        J::CU_JIT_INFO_LOG_BUFFER,
        J::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
    ];
    // Sizes are passed by value in the pointer slot, as cuModuleLoadDataEx expects.
    let mut values = [
        error_log.as_mut_ptr() as *mut c_void,
        LOG as *mut c_void,
        info_log.as_mut_ptr() as *mut c_void,
        LOG as *mut c_void,
    ];
    let mut module = std::ptr::null_mut();
    // SAFETY: NUL-terminated image; option arrays of equal length; log buffers of LOG bytes
    // that outlive the call.
    let result = unsafe {
        cu::cuModuleLoadDataEx(
            &mut module,
            text.as_ptr() as *const c_void,
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    if result == cu::cudaError_enum::CUDA_SUCCESS {
        return Ok(module);
    }
    if let Err(e @ Error::NoDevice(_)) = check("cuModuleLoadDataEx", result) {
        return Err(e);
    }
    let log = |buf: &[u8]| {
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        String::from_utf8_lossy(&buf[..end]).into_owned()
    };
    Err(Error::PtxLoad {
        module: ptx.name.to_string(),
        error: error_name(result),
        log: format!("{}{}", log(&error_log), log(&info_log)),
    })
}

impl Kernel {
    /// The entry point's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The device this kernel is loaded on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// Blocks of `block` threads (with `dynamic_shared` bytes of dynamic shared memory each)
    /// that fit on one SM at once, from the occupancy API.
    pub fn max_active_blocks_per_sm(&self, block: u32, dynamic_shared: usize) -> Result<u32> {
        self.gpu.bind()?;
        let mut n = 0i32;
        // SAFETY: valid function handle; out-pointer to a local.
        check("cuOccupancyMaxActiveBlocksPerMultiprocessor", unsafe {
            cu::cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &mut n,
                self.raw,
                block as i32,
                dynamic_shared,
            )
        })?;
        Ok(n.max(0) as u32)
    }

    /// Largest block this kernel can be launched with (register use may lower it below the
    /// device limit).
    pub fn max_threads_per_block(&self) -> Result<u32> {
        self.attribute(cu::CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
    }

    /// Registers per thread, from the JIT.
    pub fn registers_per_thread(&self) -> Result<u32> {
        self.attribute(cu::CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_NUM_REGS)
    }

    fn attribute(&self, a: cu::CUfunction_attribute) -> Result<u32> {
        self.gpu.bind()?;
        let mut v = 0i32;
        // SAFETY: valid function handle; out-pointer to a local.
        check("cuFuncGetAttribute", unsafe {
            cu::cuFuncGetAttribute(&mut v, a, self.raw)
        })?;
        Ok(v.max(0) as u32)
    }

    /// Allows this kernel up to `bytes` of dynamic shared memory (needed above 48 KiB).
    pub fn set_max_dynamic_shared(&self, bytes: usize) -> Result<()> {
        self.gpu.bind()?;
        // SAFETY: valid function handle.
        check("cuFuncSetAttribute", unsafe {
            cu::cuFuncSetAttribute(
                self.raw,
                cu::CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32,
            )
        })
    }

    /// Enqueues the kernel on `stream`. A zero-sized grid or block is refused.
    ///
    /// Build `args` with [`kernel_args!`](crate::kernel_args) in the same statement.
    ///
    /// # Safety
    /// `args` must match the kernel's parameters in number, order and type, and every device
    /// pointer among them must stay valid, and sized for what the kernel touches, until the
    /// kernel has finished.
    pub unsafe fn launch(
        &self,
        config: LaunchConfig,
        stream: &Stream,
        args: &[*mut c_void],
    ) -> Result<()> {
        config.validate()?;
        self.gpu.bind()?;
        // SAFETY: the caller guarantees the arguments; the config was validated above.
        check("cuLaunchKernel", unsafe {
            cu::cuLaunchKernel(
                self.raw,
                config.grid,
                1,
                1,
                config.block,
                1,
                1,
                config.shared_bytes,
                stream.as_raw(),
                args.as_ptr() as *mut *mut c_void,
                std::ptr::null_mut(),
            )
        })
        .map_err(|e| match e {
            Error::Cuda { call, error, code } => Error::Cuda {
                call,
                error: format!("{error} (kernel `{}`, {config:?})", self.name),
                code,
            },
            other => other,
        })
    }
}

/// Kernel parameters for [`Kernel::launch`]: `kernel_args![ptr, n, value]` gives an array of
/// pointers to the values. Use it inside the `launch` call so the values outlive the launch.
#[macro_export]
macro_rules! kernel_args {
    ($($arg:expr),* $(,)?) => {
        [$( &$arg as *const _ as *mut ::std::ffi::c_void ),*]
    };
}
