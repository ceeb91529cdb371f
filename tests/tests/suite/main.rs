//! Every contract and end-to-end test of `druids-tests`, in one binary (as
//! ripgrep does): one link instead of one per file on a small CI machine. Each
//! module drives a real server over TCP.

mod arena;
mod arena_house;
mod arena_kits;
mod arena_quotas;
mod arena_revoke;
mod arena_sybils;
mod arena_tournaments;
mod arena_waiting;
mod bounds;
mod browser;
mod cairn;
mod clocks;
mod cluster;
mod contract;
mod cross_language;
mod deploy;
mod dolmen;
mod faults;
mod games;
mod hostile;
mod ladder;
mod lifecycle;
mod limits;
mod listeners;
mod metrics;
mod outcome_keys;
mod persistence;
mod postgres;
mod practice_seed;
mod proto;
mod python_engine;
mod readme_ladder;
mod request_window;
mod retention;
mod shutdown;
mod stores;
mod stream_resume;
mod tls;
mod trust;
mod typescript;
mod viewer_api;
mod web;
mod wire;
