// The table's sounds, off by default: a card laid, a trick taken, a deal dealt, your turn. Each is a few
// milliseconds of the Web Audio API's own oscillators and filtered noise, made when it is played: no sound
// files to load or licence, nothing fetched, and nothing at all until the player turns sounds on (that click
// is the gesture browsers ask for before a page may make a sound).
import type { Event } from "../gen/thousand/v1/table_service_pb";

/** What the table makes a sound for. */
export type Cue = "card" | "trick" | "deal" | "turn";

/** The same cue again within this many ms is one sound: a burst of events (a reload catching up, bots that
 * play at once) must not rattle. */
const AGAIN_MS = 120;

/** The cue of an event of either game, if it has one. */
export function cueOf(event: Event): Cue | undefined {
  const e = event.event;
  if (e.case !== "thousand" && e.case !== "blagogo") return undefined;
  switch (e.value.event.case) {
    case "cardPlayed":
    case "cardGiven":
    case "cardDrawn":
    case "discarded":
    case "meldsLaid":
    case "meldExtended":
    case "bridgeTaken":
    case "jokerSwapped":
      return "card";
    case "trickTaken":
    case "lastTalonTaken":
      return "trick";
    case "handDealt":
      return "deal";
    default:
      return undefined;
  }
}

export class Sounds {
  private context: AudioContext | undefined;
  private last: Partial<Record<Cue, number>> = {};
  /** The sounds made since the page opened, by cue (for the tests and the curious). */
  readonly made: Record<Cue, number> = { card: 0, trick: 0, deal: 0, turn: 0 };

  constructor(private enabled: boolean) {}

  get on(): boolean {
    return this.enabled;
  }

  /** Turn sounds on or off; called from the player's click, so the audio context may start. */
  set(on: boolean): void {
    this.enabled = on;
    if (on) {
      this.context ??= new AudioContext();
      void this.context.resume();
      this.play("card"); // the player hears what they turned on
    }
  }

  play(cue: Cue): void {
    if (!this.enabled) return;
    const now = performance.now();
    if (now - (this.last[cue] ?? -Infinity) < AGAIN_MS) return;
    this.last[cue] = now;
    this.context ??= new AudioContext();
    const ctx = this.context;
    if (ctx.state === "suspended") void ctx.resume();
    this.made[cue] += 1;
    const t = ctx.currentTime + 0.005;
    switch (cue) {
      case "card":
        noise(ctx, t, 0.05, 2400, 0.35);
        break;
      case "trick":
        noise(ctx, t, 0.12, 900, 0.3);
        noise(ctx, t + 0.06, 0.1, 1300, 0.2);
        break;
      case "deal":
        for (let i = 0; i < 6; i++) noise(ctx, t + i * 0.045, 0.035, 2800, 0.22);
        break;
      case "turn":
        tone(ctx, t, 0.16, 660, 0.12);
        tone(ctx, t + 0.12, 0.22, 880, 0.1);
        break;
    }
  }
}

/** A short burst of band-passed noise: a card on cloth. */
function noise(ctx: AudioContext, at: number, seconds: number, hz: number, gain: number): void {
  const frames = Math.max(1, Math.floor(ctx.sampleRate * seconds));
  const buffer = ctx.createBuffer(1, frames, ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < frames; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / frames) ** 2;
  const source = ctx.createBufferSource();
  source.buffer = buffer;
  const filter = ctx.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = hz;
  filter.Q.value = 0.8;
  const level = ctx.createGain();
  level.gain.value = gain;
  source.connect(filter).connect(level).connect(ctx.destination);
  source.start(at);
}

/** A soft sine note that fades: the chime of your turn. */
function tone(ctx: AudioContext, at: number, seconds: number, hz: number, gain: number): void {
  const osc = ctx.createOscillator();
  osc.type = "sine";
  osc.frequency.value = hz;
  const level = ctx.createGain();
  level.gain.setValueAtTime(0, at);
  level.gain.linearRampToValueAtTime(gain, at + 0.01);
  level.gain.exponentialRampToValueAtTime(0.0001, at + seconds);
  osc.connect(level).connect(ctx.destination);
  osc.start(at);
  osc.stop(at + seconds + 0.02);
}
