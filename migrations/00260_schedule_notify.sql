-- +goose Up
-- Issue 46, notifications: a schedule's policy for telling the webhooks of
-- notify.webhook-url about its fires (schedule add --notify): always (every
-- finished fire), on-failure (a failed fire, and the schedule disabling
-- itself after max_failures), never. The deliveries themselves are River
-- jobs of kind notify_deliver (queue notify): River's tables, already
-- secured, are the outbox, so no table is added here.
ALTER TABLE helix_schedules ADD COLUMN notify text NOT NULL DEFAULT 'on-failure'
    CHECK (notify IN ('always', 'on-failure', 'never'));

-- +goose Down
ALTER TABLE helix_schedules DROP COLUMN notify;
