import type { AnswerMessage } from './port.js';

/** Chatbot personas (SPEC.md "Integration") and the voice each asks of the model. */
const PERSONAS: Record<string, string> = {
  'customer-support': 'You are a friendly, precise customer-support assistant. Solve the visitor’s problem step by step.',
  'sales-assistant': 'You are a helpful sales assistant. Explain what the product offers and how it fits the visitor’s needs, without pressure.',
  'onboarding-guide': 'You are an onboarding guide. Help new users get started with clear, encouraging, practical steps.',
  'technical-expert': 'You are a technical expert. Answer accurately and concisely, with exact names, settings and code where they help.',
  custom: 'You are a helpful assistant.',
};

export interface PromptPassage {
  ref: number;
  title: string | null;
  url: string | null;
  text: string;
  /** The page a section passage was cut from ("Dependency Pre-Bundling" of "The Why"). */
  pageTitle?: string;
}

export interface PromptInput {
  task: 'chat' | 'summary';
  persona?: string;
  instructions?: string | null;
  /** BCP 47 tag of the language to answer in, when known. */
  locale?: string;
  passages: readonly PromptPassage[];
  /** The page the visitor is on (chat). */
  page?: { url: string; title?: string };
}

/** English name of a language tag (`de` → German), or the tag itself when unknown. */
export function languageName(tag: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(tag) ?? tag;
  } catch {
    return tag;
  }
}

/**
 * The system prompt: persona, the operator's instructions, the answer language and the
 * numbered passages, with the grounding rules (answer only from the passages, cite them as
 * [n], say so when they do not hold the answer).
 */
export function systemPrompt(input: PromptInput): string {
  const lines = [PERSONAS[input.persona ?? 'custom'] ?? PERSONAS.custom!];
  lines.push(
    input.task === 'summary'
      ? 'Write a short summary (at most five sentences) that answers the query from the passages below.'
      : 'Answer the visitor’s last message from the passages below; earlier messages are context.',
    'Use only facts stated in the passages. Never invent facts, numbers, names or links.',
    'After each sentence that uses a passage, cite it by its number in square brackets, like [1] or [1, 3].',
    'If the passages do not contain the answer, say briefly that you could not find it.',
    'Use Markdown for lists and emphasis where it helps; no headings.',
  );
  if (input.locale) lines.push(`Write the answer in ${languageName(input.locale)}.`);
  else lines.push('Write the answer in the language of the question.');
  if (input.page) {
    const page = input.page.title ? `“${input.page.title}” (${input.page.url})` : input.page.url;
    lines.push(`The visitor is reading the page ${page}: “this page” or “here” in their messages means it.`);
  }
  if (input.instructions?.trim()) lines.push('', 'Instructions from the site operator:', input.instructions.trim());
  lines.push('', 'Passages:');
  for (const p of input.passages) {
    const title = p.pageTitle && p.title && p.pageTitle !== p.title ? `${p.pageTitle} › ${p.title}` : p.title;
    const heading = [title, p.url].filter(Boolean).join(' — ');
    lines.push('', `[${p.ref}]${heading ? ` ${heading}` : ''}`, p.text.trim());
  }
  return lines.join('\n');
}

/** The messages for a provider: system prompt, earlier turns, then the question. */
export function buildMessages(input: PromptInput, history: readonly AnswerMessage[], question: string): AnswerMessage[] {
  return [{ role: 'system', content: systemPrompt(input) }, ...history, { role: 'user', content: question }];
}
