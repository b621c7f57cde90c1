// The page's view as the game's actions (play.js, record.js) see it: the
// functions controls.js installs when it loads. controls.js calls the actions
// and the actions call the view through this object, so neither module
// imports the other.

export const view = {
  /** Redraws the page from S. */
  render: () => {},
  /** Shows a message to the person ('' clears it). */
  notice: (_text) => {},
  /** Shows the statistics of the engine's last search and its move. */
  showStats: (_info, _best) => {},
  /** Clears the statistics. */
  clearStats: () => {},
};
