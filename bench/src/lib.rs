//! Nothing here: see benches/conversions.rs.
