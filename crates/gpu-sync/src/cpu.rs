//! The CPU side of the demonstration and of the probes: the heavy-tailed workload generator
//! and references that reproduce `kernels/sync.cu` bit for bit.

use gpu_core::data::SplitMix64;
use gpu_core::{Error, Pod, Result};
use rayon::prelude::*;

/// Threads per block of the demonstration kernels (fixed: an item's result depends on it).
pub const DEMO_BLOCK: u32 = 256;
/// Independent chains per thread in the demonstration kernels.
pub const DEMO_CHAINS: u32 = 4;
/// Lanes (independent chains) per item: [`DEMO_BLOCK`] × [`DEMO_CHAINS`].
pub const DEMO_LANES: u32 = DEMO_BLOCK * DEMO_CHAINS;
/// Multiplier of the demonstration's LCG step `x ← a·x + c`.
pub const DEMO_LCG_A: u32 = 1_664_525;
/// Increment of the demonstration's LCG step `x ← a·x + c`.
pub const DEMO_LCG_C: u32 = 1_013_904_223;
/// Lane `l` of an item starts at `seed + l · DEMO_LANE_STRIDE`.
pub const DEMO_LANE_STRIDE: u32 = 0x9E37_79B9;
/// Words of the per-block table the demonstration builds when it has a setup cost (16 KiB of
/// shared memory per block).
pub const DEMO_TABLE_WORDS: u32 = 4096;
/// Word `j` of the table starts at `DEMO_TABLE_SEED + j · DEMO_LANE_STRIDE`.
pub const DEMO_TABLE_SEED: u32 = 0x2545_F491;

/// One item of the demonstration workload, laid out as the kernels read it.
///
/// The whole block works on one item: [`DEMO_LANES`] independent chains, each `cost` steps of
/// the LCG `x ← a·x + c` (a dependent integer multiply-add per step) from
/// `seed + lane · 0x9E3779B9`; the item's result is the wrapping sum of the lanes' final
/// values. So an item's cost on the GPU is proportional to `cost`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DemoItem {
    /// LCG steps per lane.
    pub cost: u32,
    /// Start value of lane 0.
    pub seed: u32,
}

// SAFETY: #[repr(C)] with two u32 fields: no padding, no pointers, every bit pattern valid.
unsafe impl Pod for DemoItem {}

/// A capped Pareto distribution of item costs: most items cost about `median` steps, a few
/// cost up to `max_ratio × median`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeavyTail {
    /// Median cost in LCG steps (≥ 1).
    pub median: u32,
    /// Pareto tail index (> 0): smaller is heavier; below 2 the variance is unbounded before
    /// the cap, below 1 the mean is too.
    pub alpha: f64,
    /// Cap of the costs as a multiple of the median (≥ 1).
    pub max_ratio: f64,
}

impl Default for HeavyTail {
    /// Median 32 steps, α = 1.2, capped at 1000 × the median: about 1 item in 8,000 costs
    /// the full 1000 × median, and the mean is about 2.7 × the median.
    fn default() -> Self {
        HeavyTail {
            median: 32,
            alpha: 1.2,
            max_ratio: 1000.0,
        }
    }
}

impl HeavyTail {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<()> {
        if self.median == 0 {
            return Err(Error::invalid("median", "must be at least 1"));
        }
        if !(self.alpha.is_finite() && self.alpha > 0.0) {
            return Err(Error::invalid(
                "alpha",
                format!("{}: must be finite and > 0", self.alpha),
            ));
        }
        if !(self.max_ratio.is_finite() && self.max_ratio >= 1.0) {
            return Err(Error::invalid(
                "max_ratio",
                format!("{}: must be finite and ≥ 1", self.max_ratio),
            ));
        }
        if self.median as f64 * self.max_ratio > u32::MAX as f64 {
            return Err(Error::invalid(
                "max_ratio",
                "median × max_ratio exceeds u32::MAX steps",
            ));
        }
        Ok(())
    }

    /// The largest cost an item can get: `round(median × max_ratio)`.
    pub fn max_cost(&self) -> u32 {
        (self.median as f64 * self.max_ratio).round() as u32
    }

    /// One cost from `u` uniform in `[0, 1)`: Pareto by inversion, rounded, in
    /// `1..=max_cost()`.
    fn cost(&self, u: f64) -> u32 {
        // Pareto(x_m, α) has median x_m · 2^(1/α).
        let x_m = self.median as f64 / 2f64.powf(1.0 / self.alpha);
        let x = x_m * (1.0 - u).powf(-1.0 / self.alpha); // 1 - u in (0, 1]
        x.round().clamp(1.0, self.max_cost() as f64) as u32
    }
}

/// `n` items with costs drawn independently from `tail` and random seeds, deterministic in
/// `seed`. Items come in random cost order (heavy items are not clustered).
pub fn heavy_tailed_items(n: usize, seed: u64, tail: &HeavyTail) -> Result<Vec<DemoItem>> {
    tail.validate()?;
    let mut rng = SplitMix64::new(seed);
    Ok((0..n)
        .map(|_| {
            let cost = tail.cost(rng.next_f64());
            let seed = rng.next_u64() as u32;
            DemoItem { cost, seed }
        })
        .collect())
}

/// Summary of a workload's costs, for reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostSummary {
    /// Number of items.
    pub items: usize,
    /// Sum of the costs (LCG steps per lane).
    pub total: u64,
    /// Mean cost.
    pub mean: f64,
    /// Median cost (lower median).
    pub median: u32,
    /// Largest cost.
    pub max: u32,
}

/// The [`CostSummary`] of `items` (all zero for no items).
pub fn cost_summary(items: &[DemoItem]) -> CostSummary {
    if items.is_empty() {
        return CostSummary {
            items: 0,
            total: 0,
            mean: 0.0,
            median: 0,
            max: 0,
        };
    }
    let mut costs: Vec<u32> = items.iter().map(|it| it.cost).collect();
    costs.sort_unstable();
    let total: u64 = costs.iter().map(|&c| c as u64).sum();
    CostSummary {
        items: costs.len(),
        total,
        mean: total as f64 / costs.len() as f64,
        median: costs[(costs.len() - 1) / 2],
        max: *costs.last().unwrap_or(&0),
    }
}

/// `k` steps of the LCG as one affine map: `x ↦ a_k·x + c_k` (wrapping), by squaring.
fn lcg_jump(k: u32) -> (u32, u32) {
    let (mut a, mut c) = (1u32, 0u32); // identity
    let (mut pa, mut pc) = (DEMO_LCG_A, DEMO_LCG_C); // the step applied 2^i times
    let mut k = k;
    while k > 0 {
        if k & 1 == 1 {
            // Powers of one map commute: compose in any order.
            c = pa.wrapping_mul(c).wrapping_add(pc);
            a = pa.wrapping_mul(a);
        }
        pc = pa.wrapping_mul(pc).wrapping_add(pc);
        pa = pa.wrapping_mul(pa);
        k >>= 1;
    }
    (a, c)
}

/// The GPU's result for one item, in O(log cost): the lanes' sum after `cost` steps is
/// `a_k · Σ start + lanes · c_k`, and `Σ start = lanes · seed + stride · lanes(lanes−1)/2`.
pub fn demo_item_result(item: DemoItem) -> u32 {
    let (a, c) = lcg_jump(item.cost);
    let lanes = DEMO_LANES;
    let start_sum = lanes
        .wrapping_mul(item.seed)
        .wrapping_add(DEMO_LANE_STRIDE.wrapping_mul(lanes * (lanes - 1) / 2));
    a.wrapping_mul(start_sum)
        .wrapping_add(lanes.wrapping_mul(c))
}

/// The same result by running every lane's chain step by step (O(lanes × cost); for tests).
pub fn demo_item_result_naive(item: DemoItem) -> u32 {
    (0..DEMO_LANES).fold(0u32, |sum, lane| {
        let mut x = item.seed.wrapping_add(lane.wrapping_mul(DEMO_LANE_STRIDE));
        for _ in 0..item.cost {
            x = x.wrapping_mul(DEMO_LCG_A).wrapping_add(DEMO_LCG_C);
        }
        sum.wrapping_add(x)
    })
}

/// Every item's result, as the demonstration kernels compute them without setup (rayon).
pub fn demo_reference(items: &[DemoItem]) -> Vec<u32> {
    demo_reference_with_setup(items, 0)
}

/// Word `j` of the per-block table after `setup` LCG steps (what the kernels build in shared
/// memory when the setup cost is `setup > 0`).
pub fn demo_table_word(j: u32, setup: u32) -> u32 {
    let (a, c) = lcg_jump(setup);
    let start = DEMO_TABLE_SEED.wrapping_add((j % DEMO_TABLE_WORDS).wrapping_mul(DEMO_LANE_STRIDE));
    a.wrapping_mul(start).wrapping_add(c)
}

/// Every item's result with a per-block setup of `setup` LCG steps per table word: the item's
/// own result plus table word `seed mod DEMO_TABLE_WORDS` (nothing added when `setup == 0`).
pub fn demo_reference_with_setup(items: &[DemoItem], setup: u32) -> Vec<u32> {
    items
        .par_iter()
        .map(|&it| {
            let table = if setup == 0 {
                0
            } else {
                demo_table_word(it.seed, setup)
            };
            demo_item_result(it).wrapping_add(table)
        })
        .collect()
}

// ---- Mirrors of the probe kernels' values (used by `selftest`) ------------------------------

/// The 32-bit hash of `kernels/sync.cu` (`mix32`).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn mix32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// The partial result thread `g` writes in launch `launch` of `sync_guard_probe`.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn guard_partial(g: u64, launch: u32) -> u32 {
    mix32(
        (g as u32)
            .wrapping_mul(0x9e37_79b1)
            .wrapping_add((g >> 32) as u32)
            .wrapping_add(launch.wrapping_mul(0x85eb_ca77)),
    )
}

/// What the last block of launch `launch` of `sync_guard_probe` must find: the sum of every
/// thread's partial.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn guard_sum(threads: u64, launch: u32) -> u64 {
    (0..threads)
        .into_par_iter()
        .map(|g| guard_partial(g, launch) as u64)
        .sum()
}

/// What the queue probes write for an item of value `v`.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn queue_output(v: u32) -> u32 {
    mix32(v ^ 0xa5a5_a5a5)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    #[test]
    fn table_words_match_stepping() {
        for (j, setup) in [(0u32, 1u32), (1, 7), (4095, 64), (4096, 3), (123_456, 1000)] {
            let mut x =
                DEMO_TABLE_SEED.wrapping_add((j % DEMO_TABLE_WORDS).wrapping_mul(DEMO_LANE_STRIDE));
            for _ in 0..setup {
                x = x.wrapping_mul(DEMO_LCG_A).wrapping_add(DEMO_LCG_C);
            }
            assert_eq!(demo_table_word(j, setup), x, "word {j}, {setup} steps");
        }
        let items = [DemoItem { cost: 5, seed: 9 }];
        assert_eq!(demo_reference_with_setup(&items, 0), demo_reference(&items));
    }

    #[test]
    fn demo_item_layout_matches_the_kernel() {
        assert_eq!(std::mem::size_of::<DemoItem>(), 8);
        assert_eq!(std::mem::align_of::<DemoItem>(), 4);
        assert_eq!(std::mem::offset_of!(DemoItem, cost), 0);
        assert_eq!(std::mem::offset_of!(DemoItem, seed), 4);
    }

    #[test]
    fn jump_ahead_matches_stepping() {
        for cost in [0u32, 1, 2, 3, 4, 5, 31, 32, 33, 100, 1000] {
            for seed in [0u32, 1, 0xdead_beef, u32::MAX] {
                let it = DemoItem { cost, seed };
                assert_eq!(demo_item_result(it), demo_item_result_naive(it), "{it:?}");
            }
        }
    }

    quickcheck! {
        fn jump_ahead_matches_stepping_random(cost: u16, seed: u32) -> bool {
            let it = DemoItem { cost: cost as u32 % 3000, seed };
            demo_item_result(it) == demo_item_result_naive(it)
        }

        fn costs_stay_in_range(n: u8, seed: u64, median: u16, alpha: u8) -> bool {
            let tail = HeavyTail { median: median as u32 % 500 + 1, alpha: 0.5 + alpha as f64 / 64.0, max_ratio: 100.0 };
            let items = heavy_tailed_items(n as usize, seed, &tail).unwrap();
            items.len() == n as usize && items.iter().all(|it| (1..=tail.max_cost()).contains(&it.cost))
        }
    }

    #[test]
    fn default_workload_is_heavy_tailed() {
        let tail = HeavyTail::default();
        let items = heavy_tailed_items(1 << 18, 42, &tail).unwrap();
        assert_eq!(items, heavy_tailed_items(1 << 18, 42, &tail).unwrap());
        let s = cost_summary(&items);
        // Median near the requested one, a mean well above it, and items at the 1000× cap.
        assert!((29..=35).contains(&s.median), "{s:?}");
        assert!(s.mean > 2.0 * s.median as f64, "{s:?}");
        assert_eq!(s.max, tail.max_cost());
        let capped = items.iter().filter(|it| it.cost == tail.max_cost()).count();
        assert!((5..200).contains(&capped), "{capped} items at the cap");
        // Seeds vary.
        assert!(items[0].seed != items[1].seed);
    }

    #[test]
    fn bad_tails_are_refused() {
        let bad = [
            HeavyTail {
                median: 0,
                ..HeavyTail::default()
            },
            HeavyTail {
                alpha: 0.0,
                ..HeavyTail::default()
            },
            HeavyTail {
                alpha: f64::NAN,
                ..HeavyTail::default()
            },
            HeavyTail {
                max_ratio: 0.5,
                ..HeavyTail::default()
            },
            HeavyTail {
                median: u32::MAX,
                ..HeavyTail::default()
            },
        ];
        for t in bad {
            assert!(heavy_tailed_items(10, 1, &t).is_err(), "{t:?}");
        }
        assert_eq!(cost_summary(&[]).items, 0);
    }

    #[test]
    fn reference_is_per_item() {
        let items = heavy_tailed_items(1000, 3, &HeavyTail::default()).unwrap();
        let r = demo_reference(&items);
        assert_eq!(r.len(), 1000);
        assert_eq!(r[17], demo_item_result(items[17]));
    }

    #[test]
    fn probe_mirrors() {
        // mix32 is a bijection: no collisions on a sample.
        let mut v: Vec<u32> = (0..10_000).map(mix32).collect();
        v.sort_unstable();
        v.dedup();
        assert_eq!(v.len(), 10_000);
        assert_eq!(mix32(0), 0);
        assert_ne!(guard_partial(0, 0), guard_partial(0, 1));
        assert_ne!(guard_partial(1 << 32, 0), guard_partial(0, 0));
        let s: u64 = (0..1000).map(|g| guard_partial(g, 7) as u64).sum();
        assert_eq!(guard_sum(1000, 7), s);
        assert_ne!(queue_output(1), queue_output(2));
    }
}
