//! converge-uniformity (under construction).
