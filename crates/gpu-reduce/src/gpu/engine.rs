//! The launches: one type-erased engine for every algorithm and value kind, so the generic
//! public API stays thin.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use gpu_core::{kernel_args, Error, Gpu, Kernel, LaunchConfig, Result, Stream};

use crate::algorithm::{Algorithm, Operation};
use crate::kernels::REDUCE_PTX;
use crate::plan::{self, Family, DEFAULT_SHARED_LIMIT};

use super::workspace::Workspace;

/// What is reduced, independent of the Rust types: the kernel name parts and value sizes.
#[derive(Debug, Clone)]
pub(crate) struct Desc {
    pub operation: Operation,
    /// Accumulator kind of the first pass, e.g. `sum_f32`, `argmin_i64`, `sum_i32_to_i64`.
    pub kind: String,
    /// Kind of the passes that read partials (two-pass second launch, unrolled passes after
    /// the first): `sum_f32`, `argmin_i64_partials`, `sum_i64`.
    pub partials_kind: String,
    /// Bytes of one input element.
    pub input_size: usize,
    /// Bytes of one accumulator value.
    pub value_size: usize,
}

impl Desc {
    /// The reduction of this one's partials (in chunk order): the same operation over the
    /// partials' kind (wide sums for widening sums, f32 for 16-bit sums, the monoid itself).
    pub(crate) fn fold(&self) -> Desc {
        Desc {
            operation: self.operation,
            kind: self.partials_kind.clone(),
            partials_kind: self.partials_kind.clone(),
            input_size: self.value_size,
            value_size: self.value_size,
        }
    }
}

/// The caller's choices.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Settings {
    pub algorithm: Algorithm,
    pub block: Option<u32>,
    pub unroll: u32,
}

impl Settings {
    /// Every check that needs no device: algorithm vs operation, block size, unroll factor.
    pub fn validate(&self, operation: Operation) -> Result<()> {
        self.algorithm.check(operation)?;
        if let Some(b) = self.block {
            plan::check_block(b)?;
        }
        plan::check_unroll(self.unroll)
    }
}

/// How a one-launch kernel's blocks hand on their results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// One block, which writes the result.
    Single,
    /// A grid; the last block (guard) merges the partials.
    Guarded,
    /// A grid writing partials only (the caller launches a second pass).
    Partials,
}

#[derive(Debug, Clone, Copy)]
struct KernelInfo {
    max_threads: u32,
}

fn kernel_info(kernel: &Kernel) -> Result<KernelInfo> {
    static INFO: OnceLock<Mutex<HashMap<(usize, String), KernelInfo>>> = OnceLock::new();
    let key = (kernel.gpu().properties().ordinal, kernel.name().to_string());
    let map = INFO.get_or_init(Default::default);
    if let Some(i) = map.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(*i);
    }
    let info = KernelInfo {
        max_threads: kernel.max_threads_per_block()?,
    };
    map.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, info);
    Ok(info)
}

pub(crate) fn resident_grid(kernel: &Kernel, block: u32, shared: usize) -> Result<u32> {
    type Key = (usize, String, u32, usize);
    static GRIDS: OnceLock<Mutex<HashMap<Key, u32>>> = OnceLock::new();
    let key = (
        kernel.gpu().properties().ordinal,
        kernel.name().to_string(),
        block,
        shared,
    );
    let map = GRIDS.get_or_init(Default::default);
    if let Some(&g) = map.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(g);
    }
    let g = kernel.resident_grid(block, shared)?;
    map.lock().unwrap_or_else(|e| e.into_inner()).insert(key, g);
    Ok(g)
}

/// The arguments of one launch, by kernel signature.
#[derive(Debug, Clone, Copy)]
enum Args {
    /// `(const In* in, u64 n, V* partials, V* out, unsigned* counter)`.
    OneLaunch {
        input: u64,
        n: u64,
        partials: u64,
        out: u64,
        counter: u64,
    },
    /// `(const In* in, V* out, u64 n, unsigned uf)`.
    Unrolled { src: u64, dst: u64, n: u64, uf: u32 },
}

/// One planned kernel launch: the kernel, its configuration and arguments, all resolved.
pub(crate) struct Launch {
    kernel: Kernel,
    config: LaunchConfig,
    args: Args,
}

impl Launch {
    /// The entry point's name.
    pub fn kernel_name(&self) -> &str {
        self.kernel.name()
    }

    /// Grid, block and shared memory.
    pub fn config(&self) -> LaunchConfig {
        self.config
    }

    /// Enqueues the launch on `stream`.
    ///
    /// The buffers the arguments point to must still be alive and unchanged in size since the
    /// launch was planned (the planner's caller keeps them borrowed), and launches that share
    /// a workspace must be ordered (one stream).
    pub fn enqueue(&self, stream: &Stream) -> Result<()> {
        match self.args {
            Args::OneLaunch {
                input,
                n,
                partials,
                out,
                counter,
            } => {
                // SAFETY: every one-launch entry point of reduce.cu takes (const In* in, u64 n,
                // V* partials, V* out, unsigned* counter), matching these five 8-byte values,
                // and Engine::plan built them for this kernel: `input` holds `n` elements (the
                // planner's contract, or the `grid` partials of a first TwoPass pass);
                // `partials` has room for `config.grid` values (workspace scratch sized when
                // planned and kept alive by the borrow of the workspace) or is null with a
                // one-block grid, where the kernel writes `out` directly; `out` holds one value;
                // `counter` is the workspace's last-block counter, zero between launches (the
                // guard resets it, and launches sharing it are ordered on one stream), or null,
                // which the kernel then never touches. Shared memory is what the family needs
                // for the block size, opted in above 48 KiB when planned.
                unsafe {
                    self.kernel.launch(
                        self.config,
                        stream,
                        &kernel_args![input, n, partials, out, counter],
                    )
                }
            }
            Args::Unrolled { src, dst, n, uf } => {
                // SAFETY: reduce_unrolled_<kind>(const In* in, V* out, u64 n, unsigned uf)
                // matches (u64, u64, u64, u32). `src` holds `n` values (the input, or the
                // previous pass's output in the scratch); `dst` has room for n / uf values (the
                // scratch was sized for the first pass's output and later passes write fewer;
                // the last pass writes `out`, one value); 1 <= uf <= n. With src == dst a
                // thread reads only its own slot and slots at or past n / uf, which no thread
                // writes, so the pass is race-free.
                unsafe {
                    self.kernel
                        .launch(self.config, stream, &kernel_args![src, dst, n, uf])
                }
            }
        }
    }
}

/// Plans one reduction: resolves kernels, block sizes, grids and scratch.
pub(crate) struct Engine<'a> {
    pub gpu: &'a Gpu,
    pub desc: &'a Desc,
    pub settings: Settings,
    pub ws: &'a mut Workspace,
    pub stream: &'a Stream,
}

impl Engine<'_> {
    /// Enqueues the reduction of `n` elements at `input` into the value at `out` (see
    /// [`Engine::plan`]) and marks the workspace's use.
    pub fn enqueue(&mut self, input: u64, n: u64, out: u64, in_place: bool) -> Result<()> {
        self.ws.begin(self.stream)?;
        let r = self
            .plan(input, n, out, in_place)
            .and_then(|launches| launches.iter().try_for_each(|l| l.enqueue(self.stream)));
        self.ws.end(self.stream)?;
        r
    }

    /// The launches reducing `n` elements at `input` into the value at `out`. With `in_place`
    /// (unrolled algorithm, input and accumulator of one type) the input is the scratch. An
    /// empty input writes the identity (one small launch). Grows the workspace's scratch if
    /// needed, and poisons `out` and the partials if the workspace poisons; launches nothing.
    /// Call `ws.begin(stream)` first.
    ///
    /// The caller guarantees that `input` holds `n` elements of `desc.input_size` bytes and
    /// `out` one value of `desc.value_size` bytes, on this engine's device, and that both,
    /// and the workspace's scratch, stay allocated until the launches have finished.
    pub fn plan(&mut self, input: u64, n: u64, out: u64, in_place: bool) -> Result<Vec<Launch>> {
        self.settings.validate(self.desc.operation)?;
        if self.ws.poisons() {
            self.ws
                .poison_bytes(out, self.desc.value_size, self.stream)?;
        }
        let alg = self.settings.algorithm;
        let family = Family::of(alg, self.desc.operation);
        let kind = self.desc.kind.clone();
        if n == 0 {
            // The identity, from the default kernel run on nothing.
            let family = Family::of(Algorithm::Auto, self.desc.operation);
            return Ok(vec![self.one_launch(
                family,
                &kind,
                input,
                0,
                out,
                Mode::Single,
            )?]);
        }
        if in_place || alg == Algorithm::Unrolled {
            return self.unrolled(input, n, out, in_place);
        }
        Ok(match alg {
            Algorithm::SingleBlock | Algorithm::SingleBlockNonCommutative => {
                vec![self.one_launch(family, &kind, input, n, out, Mode::Single)?]
            }
            Algorithm::TwoPass => {
                let first = self.one_launch(family, &kind, input, n, out, Mode::Partials)?;
                let grid = first.config.grid;
                let Args::OneLaunch { partials, .. } = first.args else {
                    unreachable!("one_launch plans one-launch arguments")
                };
                let mut launches = vec![first];
                if grid > 1 {
                    let second = self.desc.partials_kind.clone();
                    launches.push(self.one_launch(
                        family,
                        &second,
                        partials,
                        grid as u64,
                        out,
                        Mode::Single,
                    )?);
                }
                launches
            }
            _ => vec![self.one_launch(family, &kind, input, n, out, Mode::Guarded)?],
        })
    }

    fn kernel(&self, family: Family, kind: &str) -> Result<Kernel> {
        self.gpu.kernel(&REDUCE_PTX, &family.kernel_name(kind))
    }

    /// Block size and dynamic shared memory for `kernel`: the caller's block if set (checked
    /// against the kernel and the device), else the algorithm's default, fitted.
    fn block_for(&self, kernel: &Kernel, family: Family) -> Result<(u32, usize)> {
        let v = self.desc.value_size;
        let info = kernel_info(kernel)?;
        let Some(block) = self.settings.block else {
            let block = if family == Family::Auto {
                // The device's tuned block for the default kernel (gpu_core::tuning).
                let tuned = self.gpu.tuned("reduce.block") as u32;
                plan::fit_block(tuned, family, v, info.max_threads)
            } else {
                plan::fit_default_block(self.settings.algorithm, family, v, info.max_threads)
            };
            return Ok((block, family.shared_bytes(block, v)));
        };
        if block > info.max_threads {
            return Err(Error::invalid(
                "block_size",
                format!(
                    "{block} threads: kernel `{}` can run at most {} per block on this device",
                    kernel.name(),
                    info.max_threads
                ),
            ));
        }
        let shared = family.shared_bytes(block, v);
        if shared > DEFAULT_SHARED_LIMIT {
            let limit = self.gpu.properties().shared_memory_per_block_optin;
            if shared > limit {
                return Err(Error::invalid(
                    "block_size",
                    format!(
                        "{block} threads: `{}` needs {shared} bytes of shared memory per block, \
                         the device allows {limit}",
                        self.settings.algorithm
                    ),
                ));
            }
            kernel.set_max_dynamic_shared(shared)?;
        }
        Ok((block, shared))
    }

    /// Plans one kernel of the one-launch signature; the grid and the partials' scratch.
    fn one_launch(
        &mut self,
        family: Family,
        kind: &str,
        input: u64,
        n: u64,
        out: u64,
        mode: Mode,
    ) -> Result<Launch> {
        let kernel = self.kernel(family, kind)?;
        let (block, shared) = self.block_for(&kernel, family)?;
        let grid = match mode {
            Mode::Single => 1,
            Mode::Guarded | Mode::Partials => {
                let resident = resident_grid(&kernel, block, shared)?;
                plan::grid(n, family, block, self.desc.input_size, resident)
            }
        };
        let partials = if grid > 1 {
            self.ws
                .scratch(grid as usize * self.desc.value_size, self.stream)?
        } else {
            0u64
        };
        let counter = if mode == Mode::Guarded && grid > 1 {
            self.ws.counter_ptr()
        } else {
            0u64
        };
        Ok(Launch {
            kernel,
            config: LaunchConfig::new(grid, block).with_shared_bytes(shared as u32),
            args: Args::OneLaunch {
                input,
                n,
                partials,
                out,
                counter,
            },
        })
    }

    /// The unrolled reduction: passes of `n / UF` threads until one value is left, the last
    /// writing `out`. Not in place: the first pass reads the input and writes the scratch,
    /// later ones run in place on the scratch. In place: every pass but the last runs in
    /// place on the input.
    fn unrolled(&mut self, input: u64, n: u64, out: u64, in_place: bool) -> Result<Vec<Launch>> {
        let passes = plan::unrolled_passes(n, self.settings.unroll);
        let first = self.kernel(Family::Unrolled, &self.desc.kind)?;
        let next = if passes.len() > 1 && !in_place {
            self.kernel(Family::Unrolled, &self.desc.partials_kind)?
        } else {
            first.clone()
        };
        let scratch = if in_place {
            input
        } else if passes[0].threads > 1 {
            self.ws.scratch(
                passes[0].threads as usize * self.desc.value_size,
                self.stream,
            )?
        } else {
            0
        };
        let mut launches = Vec::with_capacity(passes.len());
        for (i, pass) in passes.iter().enumerate() {
            let kernel = if i == 0 { first.clone() } else { next.clone() };
            let (block, _) = self.block_for(&kernel, Family::Unrolled)?;
            let blocks = pass.threads.div_ceil(block as u64);
            if blocks > self.gpu.properties().max_grid_x as u64 {
                return Err(Error::invalid(
                    "x",
                    format!("{n} elements need more blocks than the device can launch"),
                ));
            }
            launches.push(Launch {
                kernel,
                config: LaunchConfig::new(blocks as u32, block),
                args: Args::Unrolled {
                    src: if i == 0 { input } else { scratch },
                    dst: if i + 1 == passes.len() { out } else { scratch },
                    n: pass.n,
                    uf: pass.uf,
                },
            });
        }
        Ok(launches)
    }
}
