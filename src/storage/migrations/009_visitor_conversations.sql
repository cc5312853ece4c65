-- Conversations started through a widget remember the widget and, for a signed-in visitor
-- (SPEC.md "Signed visitor identity"), the visitor's id, so the visitor can list, keep and
-- delete them. Anonymous widget conversations have a widget and no visitor.
ALTER TABLE conversations
  ADD COLUMN widget_id  text REFERENCES widgets(id) ON DELETE CASCADE,
  ADD COLUMN visitor_id text CHECK (char_length(visitor_id) <= 255);
CREATE INDEX conversations_visitor ON conversations (widget_id, visitor_id, updated_at);
-- The expiry clean-up looks for old conversations that are not kept.
CREATE INDEX conversations_expiry ON conversations (updated_at) WHERE NOT kept;
