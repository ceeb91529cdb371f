//! Scenario and unit tests.
