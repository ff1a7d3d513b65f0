-- +goose Up
-- Issue 46: a registry skill added with skill add --signature keeps its SSH
-- signature (ssh-keygen -Y sign -n helix-skill) and who signed it; the
-- signature is verified again each time the code is loaded to run.
CREATE TABLE helix_skill_signatures (
    skill_id    bigint PRIMARY KEY REFERENCES helix_skills (id) ON DELETE CASCADE,
    signature   text        NOT NULL,  -- armored SSHSIG
    principal   text        NOT NULL,  -- the allowed-signers principal that trusted the key
    fingerprint text        NOT NULL,  -- SHA256:… of the signing key
    created_at  timestamptz NOT NULL DEFAULT now()
);
SELECT helix_secure_table('helix_skill_signatures', NULL);

-- +goose Down
DELETE FROM helix_tables WHERE name = 'helix_skill_signatures';
DROP TABLE helix_skill_signatures;
