//! Facts: domain knowledge that a condition cannot express, computed in Rust and read by
//! rules as fields that start with `$` (`$vm.gpus`, `$target.type`, `$model.size_bytes`).
//!
//! A fact that cannot be resolved is *unknown* (never a finding). Facts are scoped: in a
//! pipeline, `$target` and `$workload` of a step are those of the step (its `compute`,
//! else the pipeline's default), elsewhere those of the document.

mod clusters;
pub mod computes;
mod doc_facts;
pub mod idiom;
pub mod index;
pub mod interface;
pub mod sources;
mod table;
mod value;
pub mod vm;
pub mod workspace;

pub use doc_facts::{
    ComputeInfo, DocFacts, FactBase, ModelFacts, ModelInfo, Placement, SimilarNames, VmNode, human_bytes,
    is_local_path, parse_date, quantity_gib, today, today_override,
};
pub use index::{CondaProblem, DiskSizes, LazyIndex, ProjectIndex};
pub use table::{FACTS, Fact, Fields, VM_FIELDS};
pub use value::{Resolved, Val};
