//! The rule catalogue: short stable ids, a sentence for people, and LLVM's exact verifier message.
//!
//! The D-numbers number the checks of LLVM's convergence verifier in the order it makes them;
//! `docs/tokens.md` has the same table.

/// One static rule of convergence control, as LLVM's IR verifier checks it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// D1: at most one `convergencectrl` bundle on a call.
    BundleOnce,
    /// D2: the bundle holds exactly one token-typed value.
    BundleOneToken,
    /// D3: a token comes from `entry`, `anchor` or `loop`.
    TokenSource,
    /// D4: `entry` only in a `convergent` function.
    EntryInConvergentFunction,
    /// D5: `entry` only in the entry block.
    EntryInEntryBlock,
    /// D6: `entry` not preceded by a convergent operation in its block.
    EntryFirst,
    /// D7: `entry` and `anchor` take no token operand.
    NoOperandOnEntryOrAnchor,
    /// D8: `loop` needs a token operand.
    LoopNeedsOperand,
    /// D9: `loop` not preceded by a convergent operation in its block.
    LoopFirst,
    /// D10: only convergent calls use tokens.
    UseByConvergentOnly,
    /// D11: controlled and uncontrolled convergent operations are not mixed in one function.
    NoMixing,
    /// D12: a token's definition dominates its uses.
    Dominance,
    /// D13: convergence regions nest properly.
    WellNested,
    /// D14: inside a cycle not containing the definition, only a `loop` heart uses the token.
    CycleUseByHeartOnly,
    /// D15: a heart sits in the header of a reducible cycle (it dominates the cycle).
    HeartInHeader,
    /// D16: at most one heart per cycle.
    OneHeartPerCycle,
    /// X1: only intrinsics return `token` (LLVM's main verifier; relevant to token producers).
    TokenReturnNotIntrinsic,
    /// X2: only intrinsics take `token` parameters (LLVM's main verifier).
    TokenParamNotIntrinsic,
}

impl Rule {
    /// Every rule, in catalogue order (D1…D16, then X1, X2).
    pub const ALL: [Rule; 18] = [
        Rule::BundleOnce,
        Rule::BundleOneToken,
        Rule::TokenSource,
        Rule::EntryInConvergentFunction,
        Rule::EntryInEntryBlock,
        Rule::EntryFirst,
        Rule::NoOperandOnEntryOrAnchor,
        Rule::LoopNeedsOperand,
        Rule::LoopFirst,
        Rule::UseByConvergentOnly,
        Rule::NoMixing,
        Rule::Dominance,
        Rule::WellNested,
        Rule::CycleUseByHeartOnly,
        Rule::HeartInHeader,
        Rule::OneHeartPerCycle,
        Rule::TokenReturnNotIntrinsic,
        Rule::TokenParamNotIntrinsic,
    ];

    /// The short stable id printed in diagnostics (`error[T-dominance]`).
    pub fn id(self) -> &'static str {
        match self {
            Rule::BundleOnce => "T-bundle-once",
            Rule::BundleOneToken => "T-bundle-one-token",
            Rule::TokenSource => "T-token-source",
            Rule::EntryInConvergentFunction => "T-entry-convergent-fn",
            Rule::EntryInEntryBlock => "T-entry-block",
            Rule::EntryFirst => "T-entry-first",
            Rule::NoOperandOnEntryOrAnchor => "T-no-operand",
            Rule::LoopNeedsOperand => "T-loop-operand",
            Rule::LoopFirst => "T-loop-first",
            Rule::UseByConvergentOnly => "T-use-convergent",
            Rule::NoMixing => "T-mixed",
            Rule::Dominance => "T-dominance",
            Rule::WellNested => "T-nesting",
            Rule::CycleUseByHeartOnly => "T-cycle-use",
            Rule::HeartInHeader => "T-heart-header",
            Rule::OneHeartPerCycle => "T-two-hearts",
            Rule::TokenReturnNotIntrinsic => "X-token-return",
            Rule::TokenParamNotIntrinsic => "X-token-param",
        }
    }

    /// The rule's number in the catalogue (`D1`…`D16`, LLVM's convergence verifier in check order),
    /// or `X1`/`X2` (LLVM's main verifier).
    pub fn catalogue(self) -> &'static str {
        const D: [&str; 18] = [
            "D1", "D2", "D3", "D4", "D5", "D6", "D7", "D8", "D9", "D10", "D11", "D12", "D13",
            "D14", "D15", "D16", "X1", "X2",
        ];
        D[self as usize]
    }

    /// A sentence in the vocabulary of "Convergent Operation Semantics".
    pub fn sentence(self) -> &'static str {
        match self {
            Rule::BundleOnce => "a call carries at most one \"convergencectrl\" operand bundle",
            Rule::BundleOneToken => {
                "a \"convergencectrl\" bundle holds exactly one value, and it is a token"
            }
            Rule::TokenSource => {
                "a convergence control token is produced only by llvm.experimental.convergence.entry, .anchor or .loop"
            }
            Rule::EntryInConvergentFunction => {
                "llvm.experimental.convergence.entry occurs only in a convergent function"
            }
            Rule::EntryInEntryBlock => {
                "llvm.experimental.convergence.entry occurs only in the entry block"
            }
            Rule::EntryFirst => {
                "llvm.experimental.convergence.entry is not preceded by a convergent operation in its block"
            }
            Rule::NoOperandOnEntryOrAnchor => {
                "llvm.experimental.convergence.entry and .anchor take no convergencectrl token"
            }
            Rule::LoopNeedsOperand => {
                "llvm.experimental.convergence.loop needs a convergencectrl token (its parent)"
            }
            Rule::LoopFirst => {
                "llvm.experimental.convergence.loop is not preceded by a convergent operation in its block"
            }
            Rule::UseByConvergentOnly => {
                "a convergence control token is used only by a convergent call"
            }
            Rule::NoMixing => {
                "a function with controlled convergent operations has no uncontrolled ones"
            }
            Rule::Dominance => "a token's definition dominates every use of the token",
            Rule::WellNested => {
                "convergence regions nest: a region containing a use of a token contains its definition"
            }
            Rule::CycleUseByHeartOnly => {
                "a closed path through a use of a token contains its definition, unless the use is a loop heart"
            }
            Rule::HeartInHeader => {
                "a loop heart dominates its cycle: it sits in the header of a reducible cycle"
            }
            Rule::OneHeartPerCycle => {
                "a closed path through two token uses contains a definition: a cycle has at most one heart"
            }
            Rule::TokenReturnNotIntrinsic => "only intrinsics return a token",
            Rule::TokenParamNotIntrinsic => "only intrinsics take a token parameter",
        }
    }

    /// The message LLVM's verifier prints (19.1 and 22.1 agree), byte for byte.
    pub fn llvm_message(self) -> &'static str {
        match self {
            Rule::BundleOnce => "The 'convergencectrl' bundle can occur at most once on a call",
            Rule::BundleOneToken => "The 'convergencectrl' bundle requires exactly one token use.",
            Rule::TokenSource => {
                "Convergence control tokens can only be produced by calls to the convergence control intrinsics."
            }
            Rule::EntryInConvergentFunction => {
                "Entry intrinsic can occur only in a convergent function."
            }
            Rule::EntryInEntryBlock => "Entry intrinsic can occur only in the entry block.",
            Rule::EntryFirst => {
                "Entry intrinsic cannot be preceded by a convergent operation in the same basic block."
            }
            Rule::NoOperandOnEntryOrAnchor => {
                "Entry or anchor intrinsic cannot have a convergencectrl token operand."
            }
            Rule::LoopNeedsOperand => "Loop intrinsic must have a convergencectrl token operand.",
            Rule::LoopFirst => {
                "Loop intrinsic cannot be preceded by a convergent operation in the same basic block."
            }
            Rule::UseByConvergentOnly => {
                "Convergence control token can only be used in a convergent call."
            }
            Rule::NoMixing => {
                "Cannot mix controlled and uncontrolled convergence in the same function."
            }
            Rule::Dominance => "Convergence control token must dominate all its uses.",
            Rule::WellNested => "Convergence region is not well-nested.",
            Rule::CycleUseByHeartOnly => {
                "Convergence token used by an instruction other than llvm.experimental.convergence.loop in a cycle that does not contain the token's definition."
            }
            Rule::HeartInHeader => "Cycle heart must dominate all blocks in the cycle.",
            Rule::OneHeartPerCycle => {
                "Two static convergence token uses in a cycle that does not contain either token's definition."
            }
            Rule::TokenReturnNotIntrinsic => "Function returns a token but isn't an intrinsic",
            Rule::TokenParamNotIntrinsic => "Function takes token but isn't an intrinsic",
        }
    }

    /// Finds the rule whose LLVM message is `line` (exactly).
    pub fn from_llvm_message(line: &str) -> Option<Rule> {
        Rule::ALL
            .into_iter()
            .find(|r| r.llvm_message() == line.trim_end())
    }

    /// Whether the rule is about cycles (its diagnostic carries a witness closed path).
    pub fn is_cycle_rule(self) -> bool {
        matches!(
            self,
            Rule::CycleUseByHeartOnly | Rule::HeartInHeader | Rule::OneHeartPerCycle
        )
    }
}
