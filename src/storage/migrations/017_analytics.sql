-- Analytics over a whole organisation (the console's overview, no integration chosen) reads
-- its logs by time; feedback names a chat answer by its message id.
CREATE INDEX search_log_organisation ON search_log (organisation_id, created_at);
CREATE INDEX integration_events_organisation ON integration_events (organisation_id, created_at);
CREATE INDEX widget_events_organisation ON widget_events (organisation_id, created_at);
CREATE INDEX widget_events_answer ON widget_events (answer_id) WHERE answer_id IS NOT NULL;
CREATE INDEX conversations_organisation ON conversations (organisation_id, created_at);
