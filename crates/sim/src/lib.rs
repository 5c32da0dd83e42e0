//! converge-sim (under construction).
