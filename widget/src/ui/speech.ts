import { iconButton } from './dom.js';
import type { WidgetContext } from './handle.js';

interface Recognition {
  lang: string;
  interimResults: boolean;
  onresult: ((event: { results: ArrayLike<ArrayLike<{ transcript: string }> & { isFinal: boolean }> }) => void) | null;
  onend: (() => void) | null;
  onerror: (() => void) | null;
  start(): void;
  stop(): void;
}

/**
 * A microphone button (`data-lore="mic"`) that dictates into `input` with the Web Speech API,
 * or null when `speech_input` is off or the browser has no speech recognition (the button is
 * then not rendered at all). `onFinal` runs with the text once the visitor stops speaking.
 */
export function speechButton(context: WidgetContext, input: HTMLInputElement | HTMLTextAreaElement, onFinal: (text: string) => void): HTMLButtonElement | null {
  const Speech = (window as unknown as { SpeechRecognition?: new () => Recognition; webkitSpeechRecognition?: new () => Recognition });
  const Constructor = Speech.SpeechRecognition ?? Speech.webkitSpeechRecognition;
  if (!context.settings.speech_input || !Constructor) return null;
  let active: Recognition | null = null;
  const button = iconButton(context.t('speak'), 'mic', { type: 'button', lore: 'mic', 'aria-pressed': 'false' });
  const set = (on: boolean) => {
    button.setAttribute('aria-pressed', String(on));
    button.setAttribute('aria-label', context.t(on ? 'stopSpeaking' : 'speak'));
  };
  button.addEventListener('click', () => {
    if (active) return active.stop();
    const recognition = new Constructor();
    recognition.lang = context.locale;
    recognition.interimResults = true;
    let text = '';
    recognition.onresult = (event) => {
      text = Array.from(event.results, (result) => result[0]?.transcript ?? '').join('');
      input.value = text;
      input.dispatchEvent(new Event('input', { bubbles: true }));
    };
    recognition.onerror = () => recognition.stop();
    recognition.onend = () => {
      active = null;
      set(false);
      if (text.trim()) onFinal(text.trim());
    };
    active = recognition;
    set(true);
    recognition.start();
  });
  return button;
}
