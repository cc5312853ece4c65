-- Instance-level state that belongs to no organisation, as JSON by key: what the demo seeded
-- (so a restart reuses it, and a demo the admin removed stays removed).

CREATE TABLE instance_settings (
  key        text        PRIMARY KEY,
  value      jsonb       NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
