//! The faults a test can ask for, read once from `PTX_CVT_STANDIN_FAULTS`:
//! a comma-separated list of
//!
//! | item | effect |
//! |---|---|
//! | `load` | every `cuModuleLoadData[Ex]` fails with CUDA_ERROR_INVALID_PTX |
//! | `load=K` | a module that contains kernel K fails to load (K: kernel name or instruction) |
//! | `launch=K` | `cuLaunchKernel` of K fails with CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (not sticky) |
//! | `trap=K` | K faults on the device: CUDA_ERROR_LAUNCH_FAILED, sticky as on hardware (every later call fails) |
//! | `abort=K` | the process ends at K's launch, status 137 (as if killed by a time limit) |
//! | `oom=BYTES` | the device has BYTES of memory: allocations beyond fail with CUDA_ERROR_OUT_OF_MEMORY |
//! | `wrong-lane=I` | thread I of every launch writes its answer with bit 0 flipped |
//! | `wrong-width=W` | kernels with a W-bit destination register write lane 0 with the register's top bit flipped |
//! | `cc=M.m` | the device reports compute capability M.m (default 9.0) |
//! | `ptx-max=X.Y` | the newest PTX ISA the JIT accepts (default 9.0, as a CUDA 13.0 driver) |

use ptx_cvt::PtxVersion;

pub struct Faults {
    pub load_all: bool,
    pub load: Vec<String>,
    pub launch: Vec<String>,
    pub trap: Vec<String>,
    pub abort: Vec<String>,
    pub memory: Option<usize>,
    pub wrong_lane: Option<u64>,
    pub wrong_width: Option<u32>,
    pub cc: (i32, i32),
    pub ptx_max: PtxVersion,
}

impl Faults {
    pub fn from_env() -> Result<Faults, String> {
        let mut f = Faults {
            load_all: false,
            load: vec![],
            launch: vec![],
            trap: vec![],
            abort: vec![],
            memory: None,
            wrong_lane: None,
            wrong_width: None,
            cc: (9, 0),
            ptx_max: "9.0".parse().expect("a known PTX version"),
        };
        let text = std::env::var("PTX_CVT_STANDIN_FAULTS").unwrap_or_default();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (key, value) = item.split_once('=').unwrap_or((item, ""));
            let bad = |e: &dyn std::fmt::Display| format!("PTX_CVT_STANDIN_FAULTS: `{item}`: {e}");
            match key {
                "load" if value.is_empty() => f.load_all = true,
                "load" => f.load.push(value.into()),
                "launch" => f.launch.push(value.into()),
                "trap" => f.trap.push(value.into()),
                "abort" => f.abort.push(value.into()),
                "oom" => f.memory = Some(value.parse().map_err(|e| bad(&e))?),
                "wrong-lane" => f.wrong_lane = Some(value.parse().map_err(|e| bad(&e))?),
                "wrong-width" => f.wrong_width = Some(value.parse().map_err(|e| bad(&e))?),
                "cc" => {
                    let (a, b) = value.split_once('.').ok_or_else(|| bad(&"want MAJOR.MINOR"))?;
                    f.cc = (a.parse().map_err(|e| bad(&e))?, b.parse().map_err(|e| bad(&e))?);
                }
                "ptx-max" => f.ptx_max = value.parse().map_err(|e: ptx_cvt::instr::TargetError| bad(&e.0))?,
                _ => return Err(bad(&"unknown fault")),
            }
        }
        Ok(f)
    }

    /// Whether a fault list names this kernel (by `.entry` name or instruction).
    pub fn names(list: &[String], kernel: &str, instruction: &str) -> bool {
        list.iter().any(|k| k == kernel || k == instruction)
    }
}
