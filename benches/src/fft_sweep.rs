//! The FFT path's width sweep as a chart: `bin conv1d-fft`'s rows (type, width, path, µs,
//! ×copy, difference) and `scripts/peers_fft.py`'s (lib, type, width, method, µs, ×copy), read
//! back from their saved output, drawn as ×copy against the mask width, one line per type for
//! `Auto`, the direct kernels, PyTorch's `conv1d` and CuPy's fastest method at each width.
//!
//! ```
//! use gpu_prims_benches::fft_sweep::{chart, parse_ours, parse_peers};
//!
//! let ours = parse_ours("type\tw\tpath\tus\txcopy\tdiff\n\
//!                        f32\t-\tcopy\t181.3\t1.000\t-\n\
//!                        f32\t1023\tauto:FftEvenOdd { size: 16384 }\t273.0\t0.673\t1.95e-6\n\
//!                        f32\t1023\tdirect\t2800.0\t0.065\t-\n");
//! let peers = parse_peers("lib\ttype\tw\tmethod\tus\txcopy\n\
//!                          torch\tf32\t1023\tconv1d\t227040.0\t0.0008\n\
//!                          cupy\tf32\t1023\tfftconvolve\t4539.9\t0.0420\n\
//!                          cupy\tf32\t1023\toaconvolve\t2846.1\t0.0669\n");
//! let c = chart("conv1d same, 2^26", &ours, &peers);
//! let names: Vec<&str> = c.series.iter().map(|s| s.name.as_str()).collect();
//! assert_eq!(names, ["ours f32 auto", "ours f32 direct", "PyTorch f32 conv1d", "CuPy f32 fastest method"]);
//! assert_eq!(c.series[3].points, vec![(1023.0, 0.0669)]);
//! assert!(c.to_svg().starts_with("<svg"));
//! ```

use crate::svg::{Chart, Series, XAxis};
use std::collections::BTreeMap;

/// One of our rows: a path's time at a width (copy rows and header lines are skipped).
#[derive(Debug, Clone, PartialEq)]
pub struct OurRow {
    /// "f32", "f64", "f16" or "bf16".
    pub dtype: String,
    /// Mask width.
    pub width: usize,
    /// The path column: `auto:<path>`, `direct`, `fft:<size>`, `fft_parts:…`.
    pub path: String,
    /// Time as a fraction of the same run's copy.
    pub xcopy: f64,
}

/// One peer row: a library's method at a width.
#[derive(Debug, Clone, PartialEq)]
pub struct PeerRow {
    /// "torch" or "cupy".
    pub lib: String,
    /// Element type.
    pub dtype: String,
    /// Mask width.
    pub width: usize,
    /// The method (`conv1d`, `fft`, `auto`, `fftconvolve`, `oaconvolve`, `direct`).
    pub method: String,
    /// Time as a fraction of the same run's copy.
    pub xcopy: f64,
}

/// The tab-separated fields of each data line (comments, headers and short lines skipped).
fn fields(text: &str, min: usize) -> impl Iterator<Item = Vec<&str>> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(move |f| f.len() >= min)
}

/// Our rows from `bin conv1d-fft`'s output (several outputs may be concatenated).
pub fn parse_ours(text: &str) -> Vec<OurRow> {
    fields(text, 5)
        .filter_map(|f| {
            Some(OurRow {
                dtype: f[0].to_string(),
                width: f[1].parse().ok()?,
                path: f[2].to_string(),
                xcopy: f[4].parse().ok()?,
            })
        })
        .collect()
}

/// The peers' rows from `scripts/peers_fft.py`'s output.
pub fn parse_peers(text: &str) -> Vec<PeerRow> {
    fields(text, 6)
        .filter_map(|f| {
            Some(PeerRow {
                lib: f[0].to_string(),
                dtype: f[1].to_string(),
                width: f[2].parse().ok()?,
                method: f[3].to_string(),
                xcopy: f[5].parse().ok()?,
            })
        })
        .collect()
}

/// The best (largest ×copy) value per width of the rows `keep` selects, in width order.
fn best_per_width<R>(
    rows: &[R],
    keep: impl Fn(&R) -> bool,
    point: impl Fn(&R) -> (usize, f64),
) -> Vec<(f64, f64)> {
    let mut best: BTreeMap<usize, f64> = BTreeMap::new();
    for (w, x) in rows.iter().filter(|r| keep(r)).map(point) {
        let e = best.entry(w).or_insert(x);
        *e = e.max(x);
    }
    best.into_iter().map(|(w, x)| (w as f64, x)).collect()
}

/// The chart: for each type present (in first-seen order), our `Auto` and direct rows, then
/// PyTorch's `conv1d` and CuPy's fastest method of that type. Empty lines are left out.
pub fn chart(title: &str, ours: &[OurRow], peers: &[PeerRow]) -> Chart {
    let mut types: Vec<&str> = Vec::new();
    for t in ours
        .iter()
        .map(|r| r.dtype.as_str())
        .chain(peers.iter().map(|r| r.dtype.as_str()))
    {
        if !types.contains(&t) {
            types.push(t);
        }
    }
    let mut series = Vec::new();
    for t in &types {
        let mine = |pred: fn(&str) -> bool| {
            best_per_width(
                ours,
                |r| r.dtype == *t && pred(&r.path),
                |r| (r.width, r.xcopy),
            )
        };
        series.push(Series::new(
            format!("ours {t} auto"),
            mine(|p| p.starts_with("auto:")),
        ));
        series.push(Series::new(
            format!("ours {t} direct"),
            mine(|p| p == "direct"),
        ));
    }
    for t in &types {
        let peer = |lib: &str, method: Option<&str>| {
            best_per_width(
                peers,
                |r| r.dtype == *t && r.lib == lib && method.map_or(true, |m| r.method == m),
                |r| (r.width, r.xcopy),
            )
        };
        series.push(Series::new(
            format!("PyTorch {t} conv1d"),
            peer("torch", Some("conv1d")),
        ));
        series.push(Series::new(
            format!("CuPy {t} fastest method"),
            peer("cupy", None),
        ));
    }
    Chart {
        title: title.to_string(),
        x_label: "mask width w".into(),
        y_label: "fraction of device-copy bandwidth".into(),
        x_axis: XAxis::Log2Pow,
        series: series
            .into_iter()
            .filter(|s| !s.points.is_empty())
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_of_several_rows_per_width_and_type() {
        let ours = parse_ours(
            "# header\ntype\tw\tpath\tus\txcopy\tdiff\nf64\t-\tcopy\t1\t1.000\t-\n\
             f64\t63\tauto:RegisterTiledFixed { width: 63 }\t364.2\t0.999\t0\n\
             f64\t95\tauto:Fft { size: 1024 }\t408.6\t0.891\t1e-15\n\
             f64\t95\tdirect\t900\t0.40\t-\nf64\t95\tfft:2048\t403\t0.903\t1e-15\n\
             f32\t95\tauto:Fft { size: 1024 }\t228.2\t0.805\t0\n",
        );
        assert_eq!(ours.len(), 5, "the copy and header rows are skipped");
        let c = chart("t", &ours, &[]);
        let names: Vec<&str> = c.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["ours f64 auto", "ours f64 direct", "ours f32 auto"]);
        assert_eq!(c.series[0].points, vec![(63.0, 0.999), (95.0, 0.891)]);
        assert_eq!(c.series[1].points, vec![(95.0, 0.40)]);
    }

    #[test]
    fn cupy_takes_its_fastest_method_torch_only_conv1d() {
        let peers = parse_peers(
            "lib\ttype\tw\tmethod\tus\txcopy\ntorch\tf32\t-\tcopy\t186.9\t1.000\n\
             torch\tf32\t31\tconv1d\t1343.4\t0.1391\ncupy\tf32\t31\tfft\t4472.6\t0.0426\n\
             cupy\tf32\t31\tdirect\t1667.3\t0.1143\ncupy\tf32\t127\toaconvolve\t2741.7\t0.0695\n",
        );
        assert_eq!(peers.len(), 4);
        let c = chart("t", &[], &peers);
        assert_eq!(c.series[0].name, "PyTorch f32 conv1d");
        assert_eq!(c.series[0].points, vec![(31.0, 0.1391)]);
        assert_eq!(c.series[1].points, vec![(31.0, 0.1143), (127.0, 0.0695)]);
    }

    #[test]
    fn nothing_parsed_draws_no_data() {
        let c = chart("t", &parse_ours("garbage\n1\t2\n"), &parse_peers(""));
        assert!(c.series.is_empty());
        assert!(c.to_svg().contains("no data"));
    }
}
