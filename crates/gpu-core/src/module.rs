//! Loading kernels on first use, one module per kernel, cached per context.
//!
//! Each kernel of a [`Ptx`] pack is its own module: the first call of an (algorithm, operator,
//! element type) loads only its kernel — its cubin where the pack has machine code for this
//! GPU, otherwise its PTX through the driver's JIT. A plain (unpacked) PTX text loads as one
//! module. Slots are per kernel: threads asking for the same kernel wait for one load; threads
//! asking for different kernels load them in parallel.

use std::ffi::{c_void, CString};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::driver::sys as cu;
use crate::driver_code;
use rayon::prelude::*;

use crate::device::Gpu;
use crate::driver::check;
use crate::driver_code::DriverCodeKind;
use crate::error::{Error, Result};
use crate::kernel_cache::{Loaded, Slot};
use crate::kernel_pack::{KernelImage, Ptx};
use crate::launch::LaunchConfig;
use crate::stream::Stream;

/// Variable that makes every kernel load from PTX even where cubins exist (`ptx`), e.g. to
/// test or time the JIT path on a GPU that has machine code.
pub const KERNEL_IMAGES_VAR: &str = "GPU_PRIMS_KERNEL_IMAGES";

/// Slot name of a plain PTX text's one module.
const WHOLE_MODULE: &str = "";

/// A kernel entry point of a loaded module.
///
/// Holding a `Kernel` keeps its `Gpu` (and so the module) alive.
#[derive(Clone)]
pub struct Kernel {
    raw: cu::CUfunction,
    module: cu::CUmodule,
    image: KernelImage,
    name: String,
    gpu: Gpu,
    /// The cache slot it came from (shared per-function state).
    slot: Arc<Slot>,
}

// SAFETY: CUfunction and CUmodule are immutable driver handles usable from any thread.
unsafe impl Send for Kernel {}
// SAFETY: as above.
unsafe impl Sync for Kernel {}

impl Gpu {
    /// The kernel `name` of the embedded kernels `ptx`, loading it on first use.
    ///
    /// Kernels are cached per context: each loads once however many threads ask for it at
    /// once. From a pack only this kernel loads: its cubin where `ptx` has machine code for
    /// this GPU (unless `GPU_PRIMS_KERNEL_IMAGES=ptx`), otherwise its PTX. A kernel whose image
    /// the driver rejects gives [`Error::PtxLoad`] naming it, with the JIT log; the other
    /// kernels keep working.
    pub fn kernel(&self, ptx: &Ptx, name: &str) -> Result<Kernel> {
        self.bind()?;
        let slot = self.slot(ptx, name);
        let mut state = slot.state.lock().unwrap_or_else(|p| p.into_inner());
        let loaded = match *state {
            Some(l) => l,
            None => {
                let l = if ptx.is_pack() {
                    let l = self.load_packed(ptx, name)?;
                    slot.loads.fetch_add(1, Ordering::Relaxed);
                    l
                } else {
                    let whole = self.whole_module(ptx)?;
                    Loaded {
                        function: get_function(whole.module, ptx, name)?,
                        ..whole
                    }
                };
                *state = Some(l);
                l
            }
        };
        Ok(Kernel {
            raw: loaded.function,
            module: loaded.module,
            image: loaded.image,
            name: name.to_string(),
            gpu: self.clone(),
            slot: slot.clone(),
        })
    }

    /// Loads every kernel of `ptx` now, in parallel, instead of on first use; returns how
    /// many there are. For programs that would rather pay all loads up front (each crate's
    /// `preload` calls this for its kernels).
    pub fn preload(&self, ptx: &Ptx) -> Result<usize> {
        let names = ptx.kernel_names();
        names
            .par_iter()
            .try_for_each(|name| self.kernel(ptx, name).map(drop))?;
        Ok(names.len())
    }

    /// The kernels of `ptx` loaded so far on this device, sorted.
    pub fn loaded_kernels(&self, ptx: &Ptx) -> Vec<String> {
        // The slots are read after the cache lock is released: a loading thread holds its
        // slot's lock and may take the cache lock (a plain text's whole module), so holding
        // both here in the other order could deadlock — and would stall every lookup for the
        // length of a JIT compile.
        let slots: Vec<(String, Arc<Slot>)> = {
            let cache = self.inner.modules.lock().unwrap_or_else(|p| p.into_inner());
            cache
                .slots
                .iter()
                .filter(|((module, kernel), _)| *module == ptx.name && kernel != WHOLE_MODULE)
                .map(|((_, kernel), slot)| (kernel.clone(), slot.clone()))
                .collect()
        };
        let mut names: Vec<String> = slots
            .into_iter()
            .filter(|(_, slot)| slot.state.lock().is_ok_and(|s| s.is_some()))
            .map(|(kernel, _)| kernel)
            .collect();
        names.sort();
        names
    }

    /// Module loads made for kernel `name` of `ptx` (0 or 1): lets tests check that many
    /// threads asking at once load it once.
    #[doc(hidden)]
    pub fn module_loads(&self, ptx: &Ptx, name: &str) -> usize {
        self.slot(ptx, name).loads.load(Ordering::Relaxed)
    }

    /// Device address and size of the `__constant__` or `__device__` variable `name` in a
    /// plain PTX text's module. Packs have one module per kernel: use [`Kernel::global`].
    pub fn module_global(&self, ptx: &Ptx, name: &str) -> Result<(u64, usize)> {
        if ptx.is_pack() {
            return Err(Error::invalid(
                "ptx",
                format!(
                    "`{}` is a pack of per-kernel modules: ask the kernel (Kernel::global)",
                    ptx.name
                ),
            ));
        }
        self.bind()?;
        global(self.whole_module(ptx)?.module, name)
    }

    fn slot(&self, ptx: &Ptx, name: &str) -> Arc<Slot> {
        let mut cache = self.inner.modules.lock().unwrap_or_else(|p| p.into_inner());
        cache
            .slots
            .entry((ptx.name, name.to_string()))
            .or_default()
            .clone()
    }

    /// The one module of a plain PTX text, loaded once (context current).
    fn whole_module(&self, ptx: &Ptx) -> Result<Loaded> {
        let slot = self.slot(ptx, WHOLE_MODULE);
        let mut state = slot.state.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(l) = *state {
            return Ok(Loaded {
                owns_module: false,
                ..l
            });
        }
        let text = ptx.text().expect("only plain PTX texts load as one module");
        let module = load_image(text.as_bytes(), true, || ptx.name.to_string())?;
        slot.loads.fetch_add(1, Ordering::Relaxed);
        let l = Loaded {
            module,
            function: std::ptr::null_mut(),
            image: KernelImage::Ptx,
            owns_module: true,
        };
        *state = Some(l);
        Ok(Loaded {
            owns_module: false,
            ..l
        })
    }

    /// Loads kernel `name` of a pack as its own module (context current).
    fn load_packed(&self, ptx: &Ptx, name: &str) -> Result<Loaded> {
        let index = ptx.index();
        let unreadable = |what: &str, log: String| Error::PtxLoad {
            module: format!("{}:{name}", ptx.name),
            error: format!("unreadable {what}"),
            log,
        };
        let section = index
            .section(name)
            .map_err(|e| unreadable("PTX archive", e))?;
        let Some(section) = section else {
            // A type or operation the crate was not built for (e.g. an element type whose
            // kernels have not landed yet): the caller's choice, not a driver failure.
            return Err(Error::invalid(
                "T",
                format!(
                    "`{}` has no kernel `{name}`: this element type or operation is not \
                     supported by that crate",
                    ptx.name
                ),
            ));
        };
        let force_ptx = std::env::var(KERNEL_IMAGES_VAR).is_ok_and(|v| v == "ptx");
        let cubin = if force_ptx {
            None
        } else {
            index
                .cubin_for(name, self.properties().compute_capability)
                .map_err(|e| unreadable("cubin archive", e))?
        };
        let (module, image) = match cubin {
            Some((arch, code)) => {
                let module = load_image(code, false, || {
                    format!("{}:{name} (sm_{arch} cubin)", ptx.name)
                })?;
                (module, KernelImage::Cubin { arch })
            }
            None => {
                let module =
                    load_image(section.as_bytes(), true, || format!("{}:{name}", ptx.name))?;
                (module, KernelImage::Ptx)
            }
        };
        let l = Loaded {
            module,
            function: std::ptr::null_mut(),
            image,
            owns_module: true,
        };
        match get_function(module, ptx, name) {
            Ok(function) => Ok(Loaded { function, ..l }),
            Err(e) => {
                // SAFETY: just loaded, referenced nowhere else; context current.
                unsafe {
                    cu::cuModuleUnload(module);
                }
                Err(e)
            }
        }
    }
}

fn get_function(module: cu::CUmodule, ptx: &Ptx, name: &str) -> Result<cu::CUfunction> {
    let cname = CString::new(name).map_err(|_| Error::invalid("name", "contains NUL"))?;
    let mut raw = std::ptr::null_mut();
    // SAFETY: valid module; NUL-terminated name; out-pointer to a local.
    check("cuModuleGetFunction", unsafe {
        driver_code!(cuModuleGetFunction(&mut raw, module, cname.as_ptr()))
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
    Ok(raw)
}

fn global(module: cu::CUmodule, name: &str) -> Result<(u64, usize)> {
    let cname = CString::new(name).map_err(|_| Error::invalid("name", "contains NUL"))?;
    let (mut ptr, mut size) = (0u64, 0usize);
    // SAFETY: valid module; NUL-terminated name; out-pointers to locals.
    check("cuModuleGetGlobal", unsafe {
        driver_code!(cuModuleGetGlobal_v2(
            &mut ptr,
            &mut size,
            module,
            cname.as_ptr()
        ))
    })?;
    Ok((ptr, size))
}

/// Loads one module image (PTX text, or a cubin), with the JIT's logs on failure. `what`
/// names it in the error.
fn load_image(image: &[u8], is_ptx: bool, what: impl Fn() -> String) -> Result<cu::CUmodule> {
    // The driver reads PTX up to its NUL and a cubin by its ELF header: both get an owned,
    // 8-byte-aligned copy (include_bytes! data is only byte-aligned).
    let mut words = vec![0u64; image.len() / 8 + 1];
    // SAFETY: `words` has at least image.len() + 1 bytes; the regions do not overlap.
    unsafe {
        std::ptr::copy_nonoverlapping(image.as_ptr(), words.as_mut_ptr() as *mut u8, image.len());
    }
    if is_ptx && image.contains(&0) {
        return Err(Error::invalid("ptx", format!("{} contains NUL", what())));
    }
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
    // SAFETY: NUL-terminated (zero-padded) image; option arrays of equal length; log buffers
    // of LOG bytes that outlive the call.
    let result = unsafe {
        driver_code!(cuModuleLoadDataEx(
            &mut module,
            words.as_ptr() as *const c_void,
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        ))
    };
    if result.is_success() {
        return Ok(module);
    }
    // A device or context failure is not the module's fault: report it as such.
    match result.kind() {
        DriverCodeKind::KernelImage | DriverCodeKind::DriverTooOld | DriverCodeKind::Other => {}
        _ => return Err(crate::Error::driver("cuModuleLoadDataEx", result)),
    }
    let log = |buf: &[u8]| {
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        String::from_utf8_lossy(&buf[..end]).into_owned()
    };
    Err(Error::PtxLoad {
        module: what(),
        error: match result.remedy() {
            Some(remedy) => format!("cuModuleLoadDataEx returned {result}: {remedy}"),
            None => format!("cuModuleLoadDataEx returned {result}"),
        },
        log: format!("{}{}", log(&error_log), log(&info_log)),
    })
}

impl Kernel {
    /// The entry point's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Which image was loaded: a cubin for this GPU's architecture, or PTX through the JIT.
    pub fn image(&self) -> KernelImage {
        self.image
    }

    /// Device address and size of the `__constant__` or `__device__` variable `name` of this
    /// kernel's module (each kernel of a pack has its own copy).
    pub fn global(&self, name: &str) -> Result<(u64, usize)> {
        self.gpu.bind()?;
        global(self.module, name)
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
            driver_code!(cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &mut n,
                self.raw,
                block as i32,
                dynamic_shared,
            ))
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

    /// Static shared memory a block of this kernel takes (bytes), before any dynamic shared
    /// memory of its launch.
    pub fn static_shared_bytes(&self) -> Result<usize> {
        self.attribute(cu::CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
            .map(|b| b as usize)
    }

    fn attribute(&self, a: cu::CUfunction_attribute) -> Result<u32> {
        self.gpu.bind()?;
        let mut v = 0i32;
        // SAFETY: valid function handle; out-pointer to a local.
        check("cuFuncGetAttribute", unsafe {
            driver_code!(cuFuncGetAttribute(&mut v, a, self.raw))
        })?;
        Ok(v.max(0) as u32)
    }

    /// Allows this kernel up to `bytes` of dynamic shared memory (needed above 48 KiB). The
    /// allowance is the function's, shared by every thread using this kernel on this device,
    /// so it only ever grows: a smaller request is a no-op (lowering it could fail another
    /// thread's launch), and a request already granted makes no driver call.
    pub fn set_max_dynamic_shared(&self, bytes: usize) -> Result<()> {
        let mut allowed = self
            .slot
            .shared_allowed
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if bytes <= *allowed {
            return Ok(());
        }
        self.gpu.bind()?;
        // SAFETY: valid function handle.
        check("cuFuncSetAttribute", unsafe {
            driver_code!(cuFuncSetAttribute(
                self.raw,
                cu::CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32,
            ))
        })?;
        *allowed = bytes;
        Ok(())
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
        // SAFETY: the caller's guarantees, passed on.
        unsafe { self.launch_2d(config, 1, stream, args) }
    }

    /// [`launch`](Kernel::launch) on a two-dimensional grid: `config.grid` blocks along x,
    /// `grid_y` (1 ..= 65535) along y.
    ///
    /// # Safety
    /// As for [`launch`](Kernel::launch).
    pub unsafe fn launch_2d(
        &self,
        config: LaunchConfig,
        grid_y: u32,
        stream: &Stream,
        args: &[*mut c_void],
    ) -> Result<()> {
        config.validate()?;
        if grid_y == 0 || grid_y > 65_535 {
            return Err(Error::invalid(
                "grid",
                format!("grid y of {grid_y} blocks (1 ..= 65535)"),
            ));
        }
        self.gpu.bind()?;
        // SAFETY: the caller guarantees the arguments; the config was validated above.
        check("cuLaunchKernel", unsafe {
            driver_code!(cuLaunchKernel(
                self.raw,
                config.grid,
                grid_y,
                1,
                config.block,
                1,
                1,
                config.shared_bytes,
                stream.as_raw(),
                args.as_ptr() as *mut *mut c_void,
                std::ptr::null_mut(),
            ))
        })
        .map_err(|e| match e {
            Error::Cuda { call, error, code } => Error::Cuda {
                call,
                error: format!(
                    "{error} (kernel `{}`, {config:?}, grid y {grid_y})",
                    self.name
                ),
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
