-- Feedback from the chat widget (thumbs_up, thumbs_down) names the answer it is about: the
-- text_delta message_id of that reply.

ALTER TABLE widget_events ADD COLUMN answer_id text;
