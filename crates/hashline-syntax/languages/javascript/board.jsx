/**
 * A kanban board: columns of cards that can be dragged between columns,
 * filtered, and saved to the server.
 */

import React, { useCallback, useEffect, useMemo, useReducer, useState } from "react";
import PropTypes from "prop-types";
import { observer } from "mobx-react";
import { api } from "./api";

/** The columns every new board starts with. */
export const DEFAULT_COLUMNS = ["To do", "Doing", "Done"];

// How long to wait after the last change before saving, in milliseconds.
const SAVE_DELAY_MS = 800;

let nextCardId = 1;
var legacyBoardCount = 0;

/**
 * Makes a card with a fresh id.
 *
 * @param {string} title the card's title
 * @param {string[]} [labels] its labels
 * @returns {{id: number, title: string, labels: string[]}}
 */
export function makeCard(title, labels = []) {
  return { id: nextCardId++, title, labels };
}

/** The actions the board reducer understands. */
const Actions = Object.freeze({
  ADD: "add",
  MOVE: "move",
  REMOVE: "remove",
  LOAD: "load",
});

/**
 * The board's state transitions; never mutates `state`.
 */
function boardReducer(state, action) {
  switch (action.type) {
    case Actions.ADD: {
      const column = state.columns[action.column];
      return {
        ...state,
        columns: { ...state.columns, [action.column]: [...column, action.card] },
      };
    }
    case Actions.MOVE: {
      const from = state.columns[action.from].filter((c) => c.id !== action.card.id);
      const to = [...state.columns[action.to], action.card];
      return { ...state, columns: { ...state.columns, [action.from]: from, [action.to]: to } };
    }
    case Actions.REMOVE:
      return {
        ...state,
        columns: Object.fromEntries(
          Object.entries(state.columns).map(([name, cards]) => [name, cards.filter((c) => c.id !== action.id)]),
        ),
      };
    case Actions.LOAD:
      return action.state;
    default:
      throw new Error(`unknown action ${action.type}`);
  }
}

/** Debounces `value`: returns it only after it stopped changing for `delay` ms. */
export const useDebounced = (value, delay) => {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return settled;
};

/** A card's coloured labels. */
const Labels = ({ labels }) => (
  <ul className="labels">
    {labels.map((label) => (
      <li key={label} className={`label label-${label}`}>
        {label}
      </li>
    ))}
  </ul>
);

/** One draggable card. */
function Card({ card, onRemove }) {
  const onDragStart = useCallback(
    (event) => event.dataTransfer.setData("text/card", JSON.stringify(card)),
    [card],
  );
  return (
    <article className="card" draggable onDragStart={onDragStart}>
      <h3>{card.title}</h3>
      <Labels labels={card.labels} />
      <button aria-label="Remove card" onClick={() => onRemove(card.id)}>
        ×
      </button>
    </article>
  );
}

Card.propTypes = {
  card: PropTypes.shape({ id: PropTypes.number, title: PropTypes.string }).isRequired,
  onRemove: PropTypes.func.isRequired,
};

/** A column that accepts dropped cards. */
function Column({ name, cards, onDrop, onRemove }) {
  const handleDrop = (event) => {
    event.preventDefault();
    onDrop(JSON.parse(event.dataTransfer.getData("text/card")), name);
  };
  return (
    <section className="column" onDragOver={(e) => e.preventDefault()} onDrop={handleDrop}>
      <h2>
        {name} <small>({cards.length})</small>
      </h2>
      {cards.map((card) => (
        <Card key={card.id} card={card} onRemove={onRemove} />
      ))}
    </section>
  );
}

/**
 * Keeps the filter text and which labels are shown; observed so every
 * board re-renders when it changes.
 */
@observer
export class FilterStore {
  static instances = 0;

  text = "";
  #hidden = new Set();

  constructor() {
    FilterStore.instances += 1;
  }

  /** Whether a card passes the filter. */
  matches(card) {
    const text = this.text.trim().toLowerCase();
    return (
      (!text || card.title.toLowerCase().includes(text)) &&
      card.labels.every((label) => !this.#hidden.has(label))
    );
  }

  toggle(label) {
    if (this.#hidden.has(label)) {
      this.#hidden.delete(label);
    } else {
      this.#hidden.add(label);
    }
  }

  get hiddenCount() {
    return this.#hidden.size;
  }

  #reset() {
    this.text = "";
    this.#hidden.clear();
  }

  static fromQuery(query) {
    const store = new FilterStore();
    store.text = new URLSearchParams(query).get("q") ?? "";
    return store;
  }
}

/** The whole board, saving itself a moment after each change. */
export default function Board({ boardId, filter }) {
  const [state, dispatch] = useReducer(boardReducer, {
    columns: Object.fromEntries(DEFAULT_COLUMNS.map((name) => [name, []])),
  });
  const [error, setError] = useState(null);
  const saved = useDebounced(state, SAVE_DELAY_MS);

  useEffect(() => {
    api.load(boardId).then((loaded) => dispatch({ type: Actions.LOAD, state: loaded }), setError);
  }, [boardId]);

  useEffect(() => {
    api.save(boardId, saved).catch(setError);
  }, [boardId, saved]);

  const visible = useMemo(
    () =>
      Object.fromEntries(
        Object.entries(state.columns).map(([name, cards]) => [name, cards.filter((c) => filter.matches(c))]),
      ),
    [state, filter],
  );

  function moveCard(card, to) {
    const from = Object.keys(state.columns).find((name) => state.columns[name].some((c) => c.id === card.id));
    if (from && from !== to) {
      dispatch({ type: Actions.MOVE, card, from, to });
    }
  }

  return (
    <main className="board">
      {error && <p role="alert">Could not sync: {String(error)}</p>}
      {Object.entries(visible).map(([name, cards]) => (
        <Column
          key={name}
          name={name}
          cards={cards}
          onDrop={moveCard}
          onRemove={(id) => dispatch({ type: Actions.REMOVE, id })}
        />
      ))}
    </main>
  );
}

/** Counts boards for the legacy dashboard. */
export function* boardIds(start = 0) {
  for (let id = start; ; id++) {
    legacyBoardCount++;
    yield id;
  }
}
