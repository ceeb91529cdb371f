//! Commands that play games in this process, on the engines, without a
//! server: `druids tournament` (built-in bots against each other).

pub mod tournament;
