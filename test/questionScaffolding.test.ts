/**
 * Answers search a question without its how-to scaffolding, in every language the writer reads
 * how-tos in ("Wie kann ich …", "…するにはどうすればいいですか"): where the tokeniser keeps
 * such words as terms, they matched every FAQ entry asked the same way, and a docs site's FAQ
 * outranked the section that answers (Express's German and Japanese docs). The stripped
 * question is still read in the whole question's language.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends, startServer, type TestServer } from './helpers.js';

const SITE = 'https://docs.example.com';
const entry = (source_id: string, title: string, raw_text: string) => ({ source_type: 'page', source_id, title, source_url: `${SITE}/${source_id}`, raw_text });
const GERMAN = [
  entry('de/faq-struktur', 'Wie kann ich meine Anwendung strukturieren?', 'Wie kann ich meine Anwendung strukturieren? Darauf gibt es keine endgültige Antwort: die Struktur Ihrer Anwendung hängt von ihrer Größe und von Ihrem Team ab.'),
  entry('de/faq-404', 'Wie kann ich 404-Antworten behandeln?', 'Wie kann ich 404-Antworten behandeln? Fügen Sie am Ende aller Routen eine Middleware-Funktion hinzu, die 404-Antworten sendet.'),
  entry('de/faq-modelle', 'Wie kann ich Modelle definieren?', 'Wie kann ich Modelle definieren? Express kennt keine Datenbanken: das überlässt es Modulen von Drittanbietern.'),
  entry('de/herunterfahren', 'Angemessenes Herunterfahren', 'Wenn Sie eine neue Version bereitstellen, sendet der Prozessmanager zuerst ein SIGTERM-Signal an die Anwendung. Sie sollte dann keine neuen Anfragen mehr annehmen, laufende Anfragen beenden und sich danach sauber beenden.'),
];
const JAPANESE = [
  entry('ja/faq-models', 'モデルを定義するにはどうすればいいですか？', 'モデルを定義するにはどうすればいいですか？ Express にはデータベースの概念がありません。その役割はサードパーティーのモジュールに任されています。'),
  entry('ja/faq-auth', 'ユーザーを認証するにはどうすればいいですか？', 'ユーザーを認証するにはどうすればいいですか？ 認証は Express が扱わない分野です。好きな認証方式を使ってください。'),
  entry('ja/faq-html', 'プレーン HTML をレンダリングするにはどうすればいいですか？', 'プレーン HTML をレンダリングするにはどうすればいいですか？ その必要はありません。express.static で HTML ファイルを配信できます。'),
  entry('ja/debugging', 'Express のデバッグ', 'Express が内部で出力するログを表示するには、環境変数 DEBUG を express:* に設定してアプリを起動します。'),
];

for (const backend of backends()) {
  describe(`answers search questions without their scaffolding [${backend}]`, () => {
    let server: TestServer;
    let token: string;
    const chatbots: Record<string, string> = {};
    before(async () => {
      server = await startServer(backend);
      ({ token } = await server.createOrg('Acme'));
      for (const [name, entries] of [['de', GERMAN], ['ja', JAPANESE]] as const) {
        const collection = (await server.call('POST', '/api/v1/collections', { token, body: { name } })).body.data.id;
        assert.equal((await server.call('POST', `/api/v1/collections/${collection}/entries/batch`, { token, body: { entries } })).status, 200);
        chatbots[name] = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'chatbot', name, collection_ids: [collection] } })).body.data.id;
      }
    });
    after(() => server.close());

    /** The URLs chat cited for `message`, first cited first. */
    const cited = async (bot: string, message: string) => {
      const reply = await server.call('POST', `/api/v1/integrations/${bot}/chat`, { token, body: { message, stream: false } });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      return (reply.body.references as { url: string }[]).map((r) => r.url);
    };

    it('answers a German how-to from the section that answers, not from the FAQ entries asked the same way', async () => {
      assert.deepEqual((await cited(chatbots.de!, 'Wie kann ich die Anwendung sauber herunterfahren?')).slice(0, 1), [`${SITE}/de/herunterfahren`]);
    });

    it('answers a Japanese how-to from the section that answers, not from the FAQ entries asked the same way', async () => {
      assert.deepEqual((await cited(chatbots.ja!, 'Express の内部ログを見るにはどうすればいいですか？')).slice(0, 1), [`${SITE}/ja/debugging`]);
    });
  });
}
