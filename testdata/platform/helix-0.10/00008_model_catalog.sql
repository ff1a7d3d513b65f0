-- +goose Up
-- helix catalog: snapshots of the models.dev catalog. A snapshot is identified
-- by the sha256 of its canonical (filtered) content, so fetching identical
-- content twice stores it once. At most one snapshot is pinned: the partial
-- unique index enforces it, and pinning is one UPDATE.
CREATE TABLE model_catalog_snapshots (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source          text NOT NULL,
    sha256          text NOT NULL UNIQUE CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    fetched_at      timestamptz NOT NULL,
    -- the --provider filter it was fetched with; empty means every provider
    provider_filter text[] NOT NULL DEFAULT '{}',
    etag            text,
    -- provider id → provider descriptor without its models
    providers       jsonb NOT NULL,
    model_count     integer NOT NULL CHECK (model_count >= 0),
    pinned          boolean NOT NULL DEFAULT false,
    pinned_at       timestamptz
);
CREATE UNIQUE INDEX model_catalog_snapshots_one_pinned ON model_catalog_snapshots ((true)) WHERE pinned;

CREATE TABLE model_catalog_models (
    snapshot_id bigint NOT NULL REFERENCES model_catalog_snapshots (id) ON DELETE CASCADE,
    provider    text NOT NULL,
    model_id    text NOT NULL,
    descriptor  jsonb NOT NULL,
    PRIMARY KEY (snapshot_id, provider, model_id)
);

-- +goose Down
DROP TABLE model_catalog_models;
DROP TABLE model_catalog_snapshots;
