//! Pairing: the matchmaking pool and tournament schedules.
