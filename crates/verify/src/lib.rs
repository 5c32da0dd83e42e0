//! converge-verify (under construction).
