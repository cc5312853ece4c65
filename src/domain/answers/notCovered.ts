/**
 * Chat's reply when the documentation holds no evidence for a question and the chatbot has no
 * `unknown_answer_message`: said in the visitor's language (the chat's `locale`, else the
 * question's language), English where Lore has no sentence for it.
 */
const NOT_COVERED: Readonly<Record<string, string>> = {
  en: 'Sorry, I could not find an answer to that in our documentation.',
  ar: 'عذرًا، لم أجد إجابة عن ذلك في وثائقنا.',
  de: 'Leider habe ich dazu keine Antwort in unserer Dokumentation gefunden.',
  el: 'Λυπάμαι, δεν βρήκα απάντηση σε αυτό στην τεκμηρίωσή μας.',
  es: 'Lo siento, no he encontrado una respuesta a eso en nuestra documentación.',
  fr: 'Désolé, je n’ai pas trouvé de réponse à cette question dans notre documentation.',
  hi: 'क्षमा करें, मुझे हमारे दस्तावेज़ों में इसका उत्तर नहीं मिला।',
  it: 'Mi dispiace, non ho trovato una risposta nella nostra documentazione.',
  ja: '申し訳ありませんが、ドキュメントにその答えが見つかりませんでした。',
  ko: '죄송합니다. 문서에서 이에 대한 답을 찾지 못했습니다.',
  nl: 'Sorry, ik heb daar geen antwoord op gevonden in onze documentatie.',
  pl: 'Niestety, nie znalazłem odpowiedzi na to pytanie w naszej dokumentacji.',
  pt: 'Desculpe, não encontrei uma resposta para isso na nossa documentação.',
  ro: 'Îmi pare rău, nu am găsit un răspuns la asta în documentația noastră.',
  ru: 'К сожалению, я не нашёл ответа на этот вопрос в нашей документации.',
  sv: 'Tyvärr hittade jag inget svar på det i vår dokumentation.',
  th: 'ขออภัย ฉันไม่พบคำตอบสำหรับคำถามนี้ในเอกสารของเรา',
  tr: 'Üzgünüm, belgelerimizde bunun bir yanıtını bulamadım.',
  vi: 'Xin lỗi, tôi không tìm thấy câu trả lời cho câu hỏi này trong tài liệu của chúng tôi.',
  zh: '抱歉，我在我们的文档中没有找到相关答案。',
};

/** The not-covered reply in `language` (a tag such as `tr` or `pt-BR`); English when unknown. */
export function notCoveredReply(language: string | undefined): string {
  const base = language?.toLowerCase().split(/[-_]/)[0] ?? 'en';
  return NOT_COVERED[base] ?? NOT_COVERED.en!;
}
