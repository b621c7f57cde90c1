// kingme web board: a protocol-aware GUI. It speaks the kingme protocol
// (protocol/PROTOCOL.md) over a WebSocket at /ws; the engine owns the rules
// (legal moves, game end), the page keeps the game record and draws the board.
//
// Modules, in the order data flows:
// - protocol.js  the WebSocket client (requests, searches) and reply parsers
// - game.js      the state: the record, the position shown, score helpers
// - play.js      the game with the engine: moves, searches, stepping, analysis, review, clock
// - clock.js     the game clock
// - pdn.js       PDN text in and out; record.js loads and downloads records
// - board.js     the board drawing; graph.js the evaluation graph;
//                analysis.js the analysis panel; review.js the review panel
//                and the marks of a review
// - view.js      the view as play.js and record.js call it (controls.js fills it)
// - controls.js  input (squares, keys, buttons) and rendering of the page
// - app.js       this file: start-up and the connection
import { S, positionCmd } from './game.js';
import { Proto, hasOption, comboOption } from './protocol.js';
import { newGame, resume, onInfo, tickClock, interrupt } from './play.js';
import { render, renderClock, notice, log, wire, formSettings, showLive } from './controls.js';

const $ = (id) => document.getElementById(id);

function connect() {
  // The key cookie goes with it; a ?key= in the page's URL is passed on too
  // (for a browser that keeps no cookies).
  const key = new URLSearchParams(location.search).get('key');
  const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws'
    + (key ? '?key=' + encodeURIComponent(key) : '');
  S.proto = new Proto(url, {
    open: async () => {
      S.connected = true;
      $('conn').textContent = 'connected';
      $('conn').className = 'conn ok';
      $('reconnect').hidden = true;
      const hello = await S.proto.request(['kingme']);
      S.engineMultiPV = hasOption(hello, 'MultiPV');
      // the choices the engine declares, not a list of the page's own
      fillChoices($('level'), comboOption(hello, 'Level'));
      fillChoices($('variant'), comboOption(hello, 'Variant'));
      if (S.started) resume();
      else newGame(formSettings());
    },
    close: () => {
      S.connected = false;
      interrupt();
      $('conn').textContent = 'disconnected';
      $('conn').className = 'conn bad';
      $('reconnect').hidden = false;
      render();
    },
    info: (info) => {
      showLive(info);
      onInfo(info);
    },
    note: (text) => { $('live-info').textContent = text; },
    error: (line) => notice(line),
    log,
  });
}

/**
 * Makes a select's choices the words of the engine's combo option, keeping
 * the choice made (from the page's address) where the engine still offers it.
 */
function fillChoices(select, combo) {
  if (!combo) return;
  const keep = select.value;
  const labels = new Map([...select.options].map((o) => [o.value, o.textContent]));
  select.replaceChildren(...combo.values.map((v) => {
    const o = document.createElement('option');
    o.value = v;
    o.textContent = labels.get(v) || v;
    return o;
  }));
  select.value = combo.values.includes(keep) ? keep : (combo.default || combo.values[0]);
}

function applyParams() {
  const q = new URLSearchParams(location.search);
  const set = (id, v, ok) => { if (v !== null && ok.includes(v)) $(id).value = v; };
  set('variant', q.get('variant'), ['english', 'mini']);
  set('color', (q.get('color') || '').slice(0, 1).toUpperCase() || null, ['B', 'W']);
  set('first', (q.get('first') || '').slice(0, 1).toUpperCase() || null, ['B', 'W']);
  set('level', q.get('level'), ['easy', 'medium', 'hard', 'max']);
  set('mode', q.get('mode'), ['play', 'analyse']);
  set('multipv', q.get('multipv'), ['1', '2', '3', '4', '5', '6', '8']);
  if (q.get('fen')) $('fen').value = q.get('fen');
  if (q.get('flip') === '1') S.flipped = true;
  if (q.get('book') === 'on' || q.get('book') === 'off') $('book').checked = q.get('book') === 'on';
  // clock=MINUTES+SECONDS, e.g. 5+3 (decimals allowed)
  const clock = (q.get('clock') || '').match(/^(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?$/);
  if (clock) {
    $('clock-min').value = clock[1];
    $('clock-inc').value = clock[2] || '0';
  }
}

document.addEventListener('DOMContentLoaded', () => {
  applyParams();
  S.variant = $('variant').value;
  S.size = S.variant === 'mini' ? 6 : 8;
  S.human = $('color').value;
  S.mode = $('mode').value;
  S.multipv = Number($('multipv').value);
  render(true);
  wire(() => { if (!S.connected) connect(); });
  setInterval(() => { if (S.clock) { tickClock(); renderClock(); } }, 100);
  connect();
});

// For tests and the curious: the state and the position command.
window.kingme = { S };
window.positionCmd = () => positionCmd();
