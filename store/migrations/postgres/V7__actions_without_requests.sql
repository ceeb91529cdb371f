-- The requests are carried over to `submission_key` (V6): the copy goes.
ALTER TABLE actions DROP COLUMN request;
