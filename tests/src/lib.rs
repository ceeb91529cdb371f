//! Helpers shared by the contract tests.
