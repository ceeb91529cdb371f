-- An action's row keeps its submission's idempotency key as digests
-- (`submission_key`, 32 bytes: the key's and the request's, NULL without a
-- key) instead of a copy of the whole request, which also held the action a
-- second time. The store fills it in for the games in play from `request`
-- (a conversion in Rust: it decodes the stored request), then V7 drops
-- `request` (store/src/postgres/mod.rs, `PostgresStore::open`).
ALTER TABLE actions ADD COLUMN submission_key BYTEA;
