//! `converge explain`'s JSON documents (schema `converge.explain/1`): the per-function summary
//! ([`ExplainReport`]: divergent branches with their joins and divergent exits, cycles assumed
//! divergent, temporal divergence) and one value's explanation ([`ExplainValueReport`]: the chain
//! of reasons back to a divergence source, or why the value is uniform, with the simulator's
//! witness in precise mode). The structs are filled in by [`crate::render::Ctx`], which also
//! writes the readable text; cycles have the common shape [`CycleJson`].

use super::CycleJson;
use crate::witness::Witness;
use converge_uniformity::Mode;
use serde::{Deserialize, Deserializer, Serialize};

/// `converge explain --format json` without `--value`/`--block`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ExplainReport {
    /// `converge.explain/1`.
    pub schema: String,
    /// `llvm` or `precise`.
    pub mode: String,
    /// One entry per selected function, in module order.
    pub functions: Vec<FunctionExplainJson>,
}

impl ExplainReport {
    /// The document for mode `mode`, schema filled in.
    pub fn new(mode: Mode, functions: Vec<FunctionExplainJson>) -> ExplainReport {
        ExplainReport {
            schema: super::schema("explain"),
            mode: mode.name().to_string(),
            functions,
        }
    }
}

/// One function of the summary. Only `function` and `analysed` when the target has no branch
/// divergence for it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct FunctionExplainJson {
    /// The function's name, without `@`.
    pub function: String,
    /// False when the target has no branch divergence (every value uniform, nothing analysed).
    pub analysed: bool,
    /// Divergent arguments and instructions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divergent_values: Option<usize>,
    /// The divergent branches, in block order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divergent_branches: Option<Vec<BranchJson>>,
    /// Cycles entered on diverged paths: every value defined in them is assumed divergent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles_assumed_divergent: Option<Vec<CycleJson>>,
    /// Uses outside a cycle with a divergent exit of values defined in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temporal_divergence: Option<Vec<TemporalExplainJson>>,
}

/// A divergent branch: why it is divergent, its joins and the divergent exits it causes.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct BranchJson {
    /// The block whose terminator branches (`%name`).
    pub block: String,
    /// `file:line:col` of the block's label.
    pub location: String,
    /// The terminator as LLVM prints it.
    pub text: String,
    /// Why the terminator is divergent.
    pub explanation: ExplanationJson,
    /// The join list stops at a bound (more joins may exist).
    pub joins_truncated: bool,
    /// Joins of the branch: blocks reached from two successors along disjoint paths.
    pub joins: Vec<JoinJson>,
    /// The divergent-exit list stops at a bound (more cycles around the branch have one).
    pub divergent_exits_truncated: bool,
    /// Per cycle around the branch with a divergent exit: the shortest path out, innermost first.
    pub divergent_exits: Vec<DivergentExitJson>,
}

/// A join of a divergent branch, with two disjoint paths to it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct JoinJson {
    /// The join block (`%name`).
    pub block: String,
    /// `file:line:col` of its label.
    pub location: String,
    /// Two paths from the branch block to the join, through different successors (`%name`s).
    pub paths: Vec<Vec<String>>,
}

/// A divergent exit a branch causes.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct DivergentExitJson {
    /// The cycle left.
    pub cycle: CycleJson,
    /// The exit block reached (`%name`).
    pub exit: String,
    /// The path from the branch block to the exit.
    pub path: Vec<String>,
}

/// One temporally divergent use.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct TemporalExplainJson {
    /// The value defined in the cycle (`%name`).
    pub value: String,
    /// `file:line:col` of its definition.
    pub location: String,
    /// The user outside the cycle, as LLVM prints it.
    pub user: String,
    /// `file:line:col` of the user.
    pub user_location: String,
    /// The cycle with the divergent exit.
    pub cycle: CycleJson,
}

/// One value's explanation: divergent with a chain of reasons, or uniform with the facts that
/// keep it so.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ExplanationJson {
    /// The function, without `@`.
    pub function: String,
    /// The value (`%name`, `%3`).
    pub value: String,
    /// Its definition as LLVM prints it (an argument: type and name).
    pub text: String,
    /// `file:line:col` of the definition.
    pub location: String,
    /// Whether the analysis calls the value divergent.
    pub divergent: bool,
    /// Divergent: the shortest chain of steps back to a divergence source, the value first;
    /// JSON null when no chain was reconstructed. Absent for a uniform value.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub chain: Option<Option<Vec<StepJson>>>,
    /// Uniform: why. Absent for a divergent value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uniform_because: Option<Vec<UniformJson>>,
}

/// One step of a chain: a value and the reason it is divergent.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct StepJson {
    /// The value (`%name`).
    pub value: String,
    /// Its definition as LLVM prints it.
    pub text: String,
    /// `file:line:col` of the definition.
    pub location: String,
    /// Why it is divergent, given the next step.
    pub reason: ReasonJson,
}

/// A reason. `kind` says which; the fields after `message` are present for the kinds that have
/// them (docs/json-schema.md lists which).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct ReasonJson {
    /// `source`, `data`, `sync`, `temporal`, `assumed-cycle`, or one of precise mode's.
    pub kind: String,
    /// The reason in one sentence, as the text format writes it.
    pub message: String,
    /// `source`: the target rule's id (`thread-id-intrinsic`, …); precise mode's reasons: the
    /// rule (`P2`, `P4`, `P6`, `P7`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// `source`: the rule applied to this value, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The divergent operand (`%name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operand: Option<String>,
    /// `file:line:col` of the operand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operand_location: Option<String>,
    /// `sync`: whether the two paths are disjoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disjoint: Option<bool>,
    /// The divergent branch's block (`%name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// `file:line:col` of the branch's block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch_location: Option<String>,
    /// `sync`: the join block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub join: Option<String>,
    /// `sync`: `file:line:col` of the join block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub join_location: Option<String>,
    /// The witness paths (blocks, `%name`s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paths: Option<Vec<Vec<String>>>,
    /// The cycle the reason is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycle: Option<CycleJson>,
    /// The cycle's exit reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<String>,
    /// The path from the branch to the exit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<Vec<String>>,
    /// `assumed-cycle`: the entries diverged paths reach.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entries: Option<Vec<String>>,
    /// Precise mode: the token (`P6`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// `file:line:col` of the token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_location: Option<String>,
    /// Precise mode: the value computed inside the region (`P6`, `P7`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// `file:line:col` of that value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_location: Option<String>,
    /// Precise mode: the loop heart (`P7`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heart: Option<String>,
    /// `file:line:col` of the heart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heart_location: Option<String>,
    /// Precise mode (`P1`): the irreducible cycle entered on diverged paths around the cycle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<CycleJson>,
}

/// Why a value is uniform: one fact.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct UniformJson {
    /// The fact's id (`no-divergent-operand`, …).
    pub kind: String,
    /// The fact in one sentence.
    pub message: String,
}

/// `converge explain --value … --format json`: one value.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ExplainValueReport {
    /// `converge.explain/1`.
    pub schema: String,
    /// `llvm` or `precise`.
    pub mode: String,
    /// The explanation.
    #[serde(flatten)]
    pub explanation: ExplanationJson,
    /// Precise mode, a divergent instruction: two converged dynamic instances the simulator
    /// found with different values, or JSON null when the search found none. Absent otherwise.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub witness: Option<Option<WitnessJson>>,
}

impl ExplainValueReport {
    /// The document for mode `mode`, schema filled in; `witness`: `None` when not searched,
    /// `Some(None)` when searched and not found, else the witness and its `converge simulate`
    /// command.
    pub fn new(
        mode: Mode,
        explanation: ExplanationJson,
        witness: Option<Option<(&Witness, &str)>>,
    ) -> ExplainValueReport {
        ExplainValueReport {
            schema: super::schema("explain"),
            mode: mode.name().to_string(),
            explanation,
            witness: witness.map(|w| w.map(|(w, cmd)| WitnessJson::new(w, cmd))),
        }
    }
}

/// The simulator's witness of a divergence.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct WitnessJson {
    /// Threads in the simulated group.
    pub threads: u32,
    /// Seed of the values not given.
    pub seed: u64,
    /// Index of the cycle hierarchy.
    pub hierarchy: usize,
    /// Parts every anchor's group was split into (1: one group).
    pub anchor_groups: u32,
    /// One converged dynamic instance: its thread and value.
    pub a: ThreadValueJson,
    /// The other: its value differs from `a`'s.
    pub b: ThreadValueJson,
    /// The `converge simulate` command that shows it.
    pub command: String,
}

impl WitnessJson {
    /// From a witness and its command.
    pub fn new(w: &Witness, command: &str) -> WitnessJson {
        let tv = |(thread, value): &(u32, String)| ThreadValueJson {
            thread: *thread,
            value: value.clone(),
        };
        WitnessJson {
            threads: w.threads,
            seed: w.seed,
            hierarchy: w.hierarchy,
            anchor_groups: w.anchor_groups,
            a: tv(&w.a),
            b: tv(&w.b),
            command: command.to_string(),
        }
    }
}

/// A thread and the value it computed, printed.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct ThreadValueJson {
    /// The thread's id in the group.
    pub thread: u32,
    /// Its value.
    pub value: String,
}

/// A field that may be absent (`None`), JSON null (`Some(None)`) or a value: a present field
/// is `Some`, whatever it holds.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}
