//! Peer libraries' figures (PyTorch, CuPy) from `scripts/peers.py`, merged into the rows.
//!
//! `peers.json` (schema `gpu-prims-peers/1`):
//! ```json
//! { "schema": "gpu-prims-peers/1", "device": "NVIDIA H100 80GB HBM3",
//!   "libraries": {"torch": "2.4.0", "cupy": null},
//!   "results": [ { "op": "sum", "library": "torch", "dtype": "f32", "n": 268435456, "w": null,
//!                  "ms": 0.36, "bytes": 1073741824, "gbps": 2980.1,
//!                  "copy_ms": 0.71, "copy_gbps": 3020.5, "copy_fraction": 0.987,
//!                  "status": "ok", "note": "" } ] }
//! ```
//! `op` is `sum`, `max`, `cumsum`, `cumsum_host` (pinned host memory in and out), `conv1d`
//! (with `w`) or `copy`; `status` is `ok`, `absent`
//! (library or operation missing) or `error`; `copy_fraction` is the peer's GB/s over the GB/s of
//! its own device-to-device copy of the same array, measured in the same peers run, with the
//! report's byte model.

use std::path::Path;

use serde_json::Value;

use super::{PeerCell, Row};

/// One result of peers.json.
#[derive(Debug, Clone, PartialEq)]
pub struct PeerResult {
    /// `sum`, `max`, `cumsum`, `cumsum_host`, `conv1d`, `copy`.
    pub op: String,
    /// `torch`, `cupy`.
    pub library: String,
    /// `i32`, `f32`, ...
    pub dtype: String,
    /// Elements.
    pub n: usize,
    /// conv1d mask width.
    pub w: Option<u64>,
    /// Median milliseconds (`None` unless `status` is `ok`).
    pub ms: Option<f64>,
    /// Fraction of the peer's own copy bandwidth.
    pub copy_fraction: Option<f64>,
    /// `ok`, `absent`, `error`.
    pub status: String,
    /// Why absent or failed.
    pub note: String,
}

/// A parsed peers.json.
#[derive(Debug, Clone, PartialEq)]
pub struct Peers {
    /// The GPU the peers ran on.
    pub device: String,
    /// Library versions (`None`: not importable).
    pub libraries: Vec<(String, Option<String>)>,
    /// Every result.
    pub results: Vec<PeerResult>,
}

fn dtype_name(s: &str) -> String {
    super::DType::parse(s).map_or_else(|| s.to_string(), |d| d.name().to_string())
}

/// Parses peers.json text.
pub fn parse(text: &str) -> Result<Peers, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let results = v
        .get("results")
        .and_then(Value::as_array)
        .ok_or("no `results` array")?;
    let str_of = |r: &Value, k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let mut out = Vec::new();
    for r in results {
        let status = str_of(r, "status");
        let ms = r.get("ms").and_then(Value::as_f64).filter(|m| *m > 0.0);
        out.push(PeerResult {
            op: str_of(r, "op"),
            library: str_of(r, "library"),
            dtype: dtype_name(&str_of(r, "dtype")),
            n: r.get("n").and_then(Value::as_u64).unwrap_or(0) as usize,
            w: r.get("w").and_then(Value::as_u64),
            ms: if status == "ok" { ms } else { None },
            copy_fraction: r.get("copy_fraction").and_then(Value::as_f64),
            status: if status.is_empty() {
                "ok".into()
            } else {
                status
            },
            note: str_of(r, "note"),
        });
    }
    let libraries = v
        .get("libraries")
        .and_then(Value::as_object)
        .map(|o| {
            o.iter()
                .map(|(k, v)| (k.clone(), v.as_str().map(String::from)))
                .collect()
        })
        .unwrap_or_default();
    Ok(Peers {
        device: v
            .get("device")
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_string(),
        libraries,
        results: out,
    })
}

/// Reads and parses a peers.json file.
pub fn load(path: &Path) -> Result<Peers, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    parse(&text)
}

/// The peer operation a row corresponds to, if any: (op, w).
pub fn peer_op(row: &Row) -> Option<(&'static str, Option<u64>)> {
    if row.kind != "gpu" {
        return None;
    }
    match row.primitive.as_str() {
        "reduce" if row.variant == "sum" => Some(("sum", None)),
        "reduce" if row.variant == "max" => Some(("max", None)),
        "scan" if row.variant == "inclusive sum" => Some(("cumsum", None)),
        // Page-locked host memory in and out: PyTorch's upload, cumsum, download.
        "scan" if row.variant == "inclusive sum, host to host, pinned" => {
            Some(("cumsum_host", None))
        }
        // Host data in, the value out: PyTorch's upload from pinned memory, sum, `.item()`.
        "reduce" if row.variant == "sum, from host, pinned" => Some(("sum_host", None)),
        "conv1d" => match (&row.param, row.variant.as_str()) {
            (Some((k, w)), crate::report::conv1d::VARIANT) if k == "w" => {
                Some(("conv1d", Some(*w)))
            }
            (Some((k, w)), v) if k == "w" && v.ends_with("host to host, pinned") => {
                Some(("conv1d_host", Some(*w)))
            }
            _ => None,
        },
        "core" if row.algorithm == "copy" => Some(("copy", None)),
        _ => None,
    }
}

/// Attaches to each row the peers' results for the same operation, type and size.
pub fn attach(rows: &mut [Row], peers: &[PeerResult]) {
    for row in rows.iter_mut() {
        let Some((op, w)) = peer_op(row) else {
            continue;
        };
        row.peers = peers
            .iter()
            .filter(|p| p.op == op && p.dtype == row.dtype && p.n == row.n && p.w == w)
            .map(|p| PeerCell {
                library: p.library.clone(),
                ms: p.ms,
                copy_fraction: p.copy_fraction.filter(|_| p.ms.is_some()),
                note: if p.ms.is_some() {
                    String::new()
                } else {
                    format!("{}: {}", p.status, p.note)
                },
            })
            .collect();
    }
}

/// The libraries present in the results, in first-seen order.
pub fn libraries(peers: &[PeerResult]) -> Vec<String> {
    let mut libs: Vec<String> = Vec::new();
    for p in peers {
        if !libs.contains(&p.library) {
            libs.push(p.library.clone());
        }
    }
    libs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_attaches() {
        let text = r#"{"schema":"gpu-prims-peers/1","device":"H100","libraries":{"torch":"2.4","cupy":null},
          "results":[
           {"op":"sum","library":"torch","dtype":"float32","n":1024,"w":null,"ms":0.5,"copy_fraction":0.9,"status":"ok"},
           {"op":"sum","library":"cupy","dtype":"f32","n":1024,"w":null,"ms":null,"status":"absent","note":"cupy not installed"},
           {"op":"conv1d","library":"torch","dtype":"f32","n":1024,"w":7,"ms":1.0,"copy_fraction":0.3,"status":"ok"}]}"#;
        let p = parse(text).unwrap();
        assert_eq!(p.device, "H100");
        assert_eq!(p.results[0].dtype, "f32");
        assert_eq!(libraries(&p.results), vec!["torch", "cupy"]);
        let mut rows = vec![Row {
            primitive: "reduce".into(),
            algorithm: "auto".into(),
            variant: "sum".into(),
            dtype: "f32".into(),
            n: 1024,
            param: None,
            kind: "gpu".into(),
            bytes: 4096,
            time: crate::stats::Stats::from_ms(vec![0.25]),
            copy: None,
            copy_bytes: 0,
            rayon_ms: None,
            correct: Some(true),
            note: String::new(),
            peers: vec![],
        }];
        attach(&mut rows, &p.results);
        assert_eq!(rows[0].peers.len(), 2);
        assert_eq!(rows[0].peers[0].ms, Some(0.5));
        assert!(rows[0].peers[1].note.contains("not installed"));
        assert!(parse("[]").is_err());
    }
}
