//! The device handle: one CUDA device, its primary context, properties and default stream.

use std::collections::HashMap;
use std::ffi::CStr;
use std::sync::{Arc, Mutex, OnceLock, RwLock, Weak};

use crate::driver::sys as cu;
use crate::driver_code;
use cu::CUdevice_attribute_enum as A;

use crate::context::Context;
use crate::driver::check;
use crate::error::{Error, Result};
use crate::host_pipeline::PipelineStaging;
use crate::kernel_cache::LoadedModules;
use crate::staging::Staging;
use crate::stream::{Event, Stream};
use crate::tuning::{DeviceProfile, Tuning};

/// What the launch plans need to know about a device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceProperties {
    /// Device index as the driver numbers them.
    pub ordinal: usize,
    /// Marketing name, e.g. `NVIDIA H100 80GB HBM3`.
    pub name: String,
    /// Compute capability (major, minor), e.g. (9, 0).
    pub compute_capability: (u32, u32),
    /// Number of streaming multiprocessors.
    pub sm_count: u32,
    /// Threads per warp (32 on every NVIDIA GPU so far).
    pub warp_size: u32,
    /// Most threads in one block.
    pub max_threads_per_block: u32,
    /// Most resident threads on one SM.
    pub max_threads_per_sm: u32,
    /// Most blocks in the x dimension of a grid.
    pub max_grid_x: u32,
    /// Static shared memory one block may use, in bytes.
    pub shared_memory_per_block: usize,
    /// Shared memory one block may use after opting in, in bytes.
    pub shared_memory_per_block_optin: usize,
    /// Shared memory of one SM, in bytes.
    pub shared_memory_per_sm: usize,
    /// `__constant__` memory, in bytes.
    pub constant_memory: usize,
    /// L2 cache, in bytes.
    pub l2_cache: usize,
    /// Device memory, in bytes.
    pub total_memory: usize,
    /// Peak memory clock in kHz (0 where the driver does not say).
    pub memory_clock_khz: u32,
    /// Memory bus width in bits (0 where the driver does not say).
    pub memory_bus_width: u32,
}

impl DeviceProperties {
    /// Peak memory bandwidth in bytes per second: twice the memory clock (double data rate)
    /// times the bus width; 0 where the driver gives neither.
    pub fn peak_memory_bandwidth(&self) -> f64 {
        2.0 * self.memory_clock_khz as f64 * 1e3 * self.memory_bus_width as f64 / 8.0
    }

    /// What the tuning rule reads of this device ([`crate::tuning`]).
    pub fn profile(&self) -> DeviceProfile {
        DeviceProfile::new(
            self.name.clone(),
            self.compute_capability,
            self.sm_count,
            self.peak_memory_bandwidth(),
        )
    }
}

/// A CUDA device with its primary context: the entry point to every GPU operation.
///
/// `Gpu` is a cheap handle (`Clone` shares it) and is `Send + Sync`: every method makes the
/// device's context current on the calling thread before touching the driver, so one `Gpu` can
/// be used from any number of threads. [`Gpu::new`] with the same ordinal returns the same
/// context, so kernels load once per device and process.
///
/// ```no_run
/// # fn main() -> gpu_core::Result<()> {
/// let gpu = gpu_core::Gpu::default_device()?;
/// println!("{} with {} SMs", gpu.properties().name, gpu.properties().sm_count);
/// let x = gpu.upload(&[1u32, 2, 3])?;
/// assert_eq!(x.to_vec()?, vec![1, 2, 3]);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Gpu {
    pub(crate) inner: Arc<GpuInner>,
}

pub(crate) struct GpuInner {
    /// Released after everything below (fields drop after `Drop::drop`), or later, when the
    /// last stream or event of this device goes.
    context: Arc<Context>,
    props: DeviceProperties,
    /// Created here with `owner: None` (its drop does nothing); destroyed in `GpuInner::drop`.
    default_stream: Stream,
    pub(crate) modules: Mutex<LoadedModules>,
    /// Pinned staging buffers for large pageable transfers, made on first use.
    pub(crate) staging: Mutex<Option<Staging>>,
    /// The pinned ring of host-to-host pipelines (`host_pipeline.rs`), made on first use.
    pub(crate) pipeline: Mutex<Option<PipelineStaging>>,
    /// Tuning values over the built-in rule: `GPU_PRIMS_TUNING`'s tables, then `set_tuning`.
    tuning: RwLock<Arc<Tuning>>,
    /// `props.profile()`, kept for the policy lookups of every launch.
    profile: DeviceProfile,
}

// SAFETY: the context and stream are driver handles valid on any thread; every use goes
// through `bind`, which makes the context current on the calling thread first. The module
// cache is behind a mutex.
unsafe impl Send for GpuInner {}
// SAFETY: as above.
unsafe impl Sync for GpuInner {}

impl GpuInner {
    /// Makes this device's context current on the calling thread.
    pub(crate) fn bind(&self) -> Result<()> {
        self.context.bind()
    }
}

impl Drop for GpuInner {
    fn drop(&mut self) {
        let _ = self.bind();
        self.modules
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .unload_all();
        if let Some(mut staging) = self
            .staging
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            staging.free();
        }
        if let Some(mut ring) = self
            .pipeline
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            ring.free();
        }
        Stream::destroy_raw(self.default_stream.as_raw());
    }
}

fn registry() -> &'static Mutex<HashMap<usize, Weak<GpuInner>>> {
    static REGISTRY: OnceLock<Mutex<HashMap<usize, Weak<GpuInner>>>> = OnceLock::new();
    REGISTRY.get_or_init(Default::default)
}

impl Gpu {
    /// The first device (index 0).
    pub fn default_device() -> Result<Self> {
        Self::new(0)
    }

    /// The device with the given index. Fails with [`Error::NoDevice`] when there is no driver,
    /// no device, or no device with that index.
    pub fn new(ordinal: usize) -> Result<Self> {
        let mut reg = registry().lock().unwrap_or_else(|p| p.into_inner());
        if let Some(inner) = reg.get(&ordinal).and_then(Weak::upgrade) {
            return Ok(Gpu { inner });
        }
        // SAFETY: cuInit may be called any number of times.
        check("cuInit", unsafe { driver_code!(cuInit(0)) })?;
        let count = Self::count()?;
        if ordinal >= count {
            return Err(Error::NoDevice(format!(
                "device {ordinal} requested, {count} device(s) present"
            )));
        }
        let mut device = 0;
        // SAFETY: out-pointer to a local; ordinal checked against the count.
        check("cuDeviceGet", unsafe {
            driver_code!(cuDeviceGet(&mut device, ordinal as i32))
        })?;
        let context = Context::retain_primary(device)?;
        context.bind()?;
        let props = query_properties(ordinal, device)?;
        let tuning = Tuning::from_env(&props.name)?;
        let default_stream = Stream::create(None)?;
        let inner = Arc::new(GpuInner {
            context,
            default_stream,
            modules: Mutex::new(LoadedModules::default()),
            staging: Mutex::new(None),
            pipeline: Mutex::new(None),
            tuning: RwLock::new(Arc::new(tuning)),
            profile: props.profile(),
            props,
        });
        reg.insert(ordinal, Arc::downgrade(&inner));
        Ok(Gpu { inner })
    }

    /// Number of CUDA devices (0 when there is no driver).
    pub fn count() -> Result<usize> {
        // SAFETY: cuInit may be called any number of times.
        check("cuInit", unsafe { driver_code!(cuInit(0)) })?;
        let mut n = 0;
        // SAFETY: out-pointer to a local.
        check("cuDeviceGetCount", unsafe {
            driver_code!(cuDeviceGetCount(&mut n))
        })?;
        Ok(n.max(0) as usize)
    }

    /// The device's properties, read once when the handle was made.
    pub fn properties(&self) -> &DeviceProperties {
        &self.inner.props
    }

    /// The tuning values set for this device over the built-in rule ([`crate::tuning`]): the
    /// tables of `GPU_PRIMS_TUNING` that name it (read when its first `Gpu` was made), or what
    /// [`Gpu::set_tuning`] set last.
    pub fn tuning(&self) -> Arc<Tuning> {
        Arc::clone(&self.inner.tuning.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// Replaces the tuning values of this device (every handle of it in this process) from the
    /// next launch on; `Tuning::new()` goes back to the built-in rule. Fails, changing nothing,
    /// on a table made for another device.
    ///
    /// ```no_run
    /// # fn main() -> gpu_core::Result<()> {
    /// let gpu = gpu_core::Gpu::default_device()?;
    /// let mut t = gpu_core::Tuning::new();
    /// t.set("scan.staged_block", 512)?;
    /// gpu.set_tuning(t)?;
    /// assert_eq!(gpu.tuned("scan.staged_block"), 512);
    /// # Ok(()) }
    /// ```
    pub fn set_tuning(&self, tuning: Tuning) -> Result<()> {
        if !tuning.applies_to(&self.inner.props.name) {
            return Err(Error::invalid(
                "tuning",
                format!(
                    "the table is for `{}`, this device is `{}`",
                    tuning.device().unwrap_or_default(),
                    self.inner.props.name
                ),
            ));
        }
        *self.inner.tuning.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(tuning);
        Ok(())
    }

    /// The value of tuning key `name` ([`crate::tuning::KEYS`]) on this device: set, else the
    /// built-in rule's for this device's profile.
    ///
    /// # Panics
    /// On a name that is not one of the keys (a bug in the caller).
    pub fn tuned(&self, name: &str) -> u64 {
        let t = self.inner.tuning.read().unwrap_or_else(|p| p.into_inner());
        t.value(name, &self.inner.profile)
    }

    /// Free and total device memory in bytes, as the driver reports them now.
    pub fn memory_info(&self) -> Result<(usize, usize)> {
        self.bind()?;
        let (mut free, mut total) = (0usize, 0usize);
        // SAFETY: out-pointers to locals; context current.
        check("cuMemGetInfo", unsafe {
            driver_code!(cuMemGetInfo_v2(&mut free, &mut total))
        })?;
        Ok((free, total))
    }

    /// The default stream of this handle: every convenience method runs on it.
    pub fn stream(&self) -> &Stream {
        &self.inner.default_stream
    }

    /// A new stream of this device, destroyed when dropped.
    pub fn new_stream(&self) -> Result<Stream> {
        self.bind()?;
        Stream::create(Some(self.inner.context.clone()))
    }

    /// A new event for timing (`timing = true`) or for synchronisation only.
    pub fn new_event(&self, timing: bool) -> Result<Event> {
        Event::create(self.inner.context.clone(), timing)
    }

    /// Blocks until all work on this handle's default stream has finished.
    pub fn synchronize(&self) -> Result<()> {
        self.stream().synchronize()
    }

    /// Makes this device's context current on the calling thread (done by every method; call it
    /// yourself only before using the raw driver API).
    pub fn bind(&self) -> Result<()> {
        self.inner.bind()
    }

    /// Lets this device access `peer`'s memory directly (NVLink or PCIe), enabled once per
    /// pair and process; `Ok(false)` where the two cannot (copies between them still work,
    /// staged by the driver). [`DeviceArray::copy_range_from_peer`](crate::DeviceArray::copy_range_from_peer)
    /// calls it.
    pub fn enable_peer_access(&self, peer: &Gpu) -> Result<bool> {
        if self.same_device(peer) {
            return Ok(true);
        }
        self.inner.context.enable_peer_access(&peer.inner.context)
    }

    pub(crate) fn raw_context(&self) -> crate::driver::sys::CUcontext {
        self.inner.context.raw()
    }

    /// Whether two handles share one context.
    pub fn same_device(&self, other: &Gpu) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("ordinal", &self.inner.props.ordinal)
            .field("name", &self.inner.props.name)
            .finish()
    }
}

fn query_properties(ordinal: usize, device: cu::CUdevice) -> Result<DeviceProperties> {
    let attr = |a: A| -> Result<i64> {
        let mut v = 0i32;
        // SAFETY: out-pointer to a local; valid device.
        check("cuDeviceGetAttribute", unsafe {
            driver_code!(cuDeviceGetAttribute(&mut v, a, device))
        })?;
        Ok(v as i64)
    };
    let mut name = [0 as std::os::raw::c_char; 256];
    // SAFETY: buffer of the stated length; the driver NUL-terminates.
    check("cuDeviceGetName", unsafe {
        driver_code!(cuDeviceGetName(
            name.as_mut_ptr(),
            name.len() as i32,
            device
        ))
    })?;
    // SAFETY: NUL-terminated by the driver within the buffer.
    let name = unsafe { CStr::from_ptr(name.as_ptr()) }
        .to_string_lossy()
        .into_owned();
    let mut total = 0usize;
    // SAFETY: out-pointer to a local; valid device.
    check("cuDeviceTotalMem", unsafe {
        driver_code!(cuDeviceTotalMem_v2(&mut total, device))
    })?;
    Ok(DeviceProperties {
        ordinal,
        name,
        compute_capability: (
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)? as u32,
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)? as u32,
        ),
        sm_count: attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
        warp_size: attr(A::CU_DEVICE_ATTRIBUTE_WARP_SIZE)? as u32,
        max_threads_per_block: attr(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)? as u32,
        max_threads_per_sm: attr(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)? as u32,
        max_grid_x: attr(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)? as u32,
        shared_memory_per_block: attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)? as usize,
        shared_memory_per_block_optin: attr(
            A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
        )? as usize,
        shared_memory_per_sm: attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)?
            as usize,
        constant_memory: attr(A::CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY)? as usize,
        l2_cache: attr(A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as usize,
        total_memory: total,
        // Optional: a driver that stops reporting them gives 0, and the tuning rule treats the
        // bandwidth as ordinary.
        memory_clock_khz: attr(A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)
            .unwrap_or(0)
            .max(0) as u32,
        memory_bus_width: attr(A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)
            .unwrap_or(0)
            .max(0) as u32,
    })
}
