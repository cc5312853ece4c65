import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { retrievalQuery } from './service.js';

describe('retrievalQuery', () => {
  it('drops English how-to and "can I" scaffolding, and nothing else', () => {
    assert.equal(retrievalQuery('How do I turn off the demo?'), 'turn off the demo?');
    assert.equal(retrievalQuery('how can we embed the chat widget'), 'embed the chat widget');
    assert.equal(retrievalQuery('How to rotate a widget secret'), 'rotate a widget secret');
    assert.equal(retrievalQuery('Can I use OpenAI?'), 'use OpenAI?');
    for (const q of ['What is Lore?', 'How many requests per minute?', 'How do I', 'How does search rank?']) assert.equal(retrievalQuery(q), q);
  });

  it('drops it in the other languages the writer reads how-tos in, keeping the verb', () => {
    assert.equal(retrievalQuery('Wie kann ich das Demo abschalten?'), 'das Demo abschalten?');
    assert.equal(retrievalQuery('Wie fahre ich die Anwendung sauber herunter?'), 'fahre die Anwendung sauber herunter?');
    assert.equal(retrievalQuery('Comment puis-je installer Lore ?'), 'installer Lore ?');
    assert.equal(retrievalQuery('Express をインストールするには？'), 'Express をインストール');
    assert.equal(retrievalQuery('Express の内部ログを見るにはどうすればいいですか？'), 'Express の内部ログを見る');
    // Questions that ask something else, and questions that are all scaffolding, are searched as asked.
    for (const q of ['Wie viele Argumente hat eine Fehlerbehandlungs-Middleware?', 'Wie heißt die Funktion?', '¿Cómo puedo instalar Express?', '如何安装 Express？', 'Hello World の例はどのポートで待ち受けますか？', 'Wie kann ich', 'Comment ?']) assert.equal(retrievalQuery(q), q);
  });
});
