//! Commands that play games in this process, on the engines, without a
//! server: `druids match` (your program against built-in bots) and `druids
//! tournament` (built-in bots against each other).

pub mod matches;
pub mod tournament;
