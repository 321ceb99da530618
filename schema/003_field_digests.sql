-- failmap archive schema, version 3: per-field digests beside the case digest
-- (schema/DIGESTS.md). cases.case_digest (version 1) holds failmap's own case
-- digest; field_digests holds the RFC 8785 text of {field: SHA-256 hex} for
-- every member of the digested case record, so `failmap verify` can name the
-- field that changed. NULL until computed (import, run, digest regenerate).
ALTER TABLE cases ADD COLUMN field_digests TEXT;
