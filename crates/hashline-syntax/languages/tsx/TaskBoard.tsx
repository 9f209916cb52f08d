import React, { useCallback, useEffect, useMemo, useReducer, useState } from "react";
import type { ReactNode } from "react";
import { api } from "./api";

/** How urgent a task is. */
export type Priority = "low" | "normal" | "high";

/** One task on the board. */
export interface Task {
  id: number;
  title: string;
  priority: Priority;
  done: boolean;
  tags: readonly string[];
}

/** Props every column takes. */
interface ColumnProps {
  title: string;
  tasks: Task[];
  onToggle(id: number): void;
  footer?: ReactNode;
}

/** The longest title a task may have. */
export const MAX_TITLE = 120;

const PRIORITY_ORDER: Record<Priority, number> = { high: 0, normal: 1, low: 2 };

let renderCount = 0;

export enum Filter {
  All = "all",
  Open = "open",
  Done = "done",
}

type Action =
  | { type: "add"; task: Task }
  | { type: "toggle"; id: number }
  | { type: "clear-done" };

/** The board's state as a reducer sees it. */
function tasksReducer(tasks: Task[], action: Action): Task[] {
  switch (action.type) {
    case "add":
      return [...tasks, action.task];
    case "toggle":
      return tasks.map((t) => (t.id === action.id ? { ...t, done: !t.done } : t));
    case "clear-done":
      return tasks.filter((t) => !t.done);
  }
}

/** Sorts by priority, then by title. */
export function byPriority(a: Task, b: Task): number {
  const order = PRIORITY_ORDER[a.priority] - PRIORITY_ORDER[b.priority];
  return order !== 0 ? order : a.title.localeCompare(b.title);
}

/** A value that follows `value` after `delay` ms without changes. */
export function useDebounced<T>(value: T, delay = 250): T {
  const [current, setCurrent] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setCurrent(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return current;
}

/** A small coloured label. */
export const Tag = ({ name }: { name: string }) => <span className={`tag tag-${name}`}>{name}</span>;

/** One task's row. */
function TaskRow({ task, onToggle }: { task: Task; onToggle(id: number): void }) {
  const label = task.done ? "Reopen" : "Done";
  return (
    <li className={task.done ? "task done" : "task"}>
      <span className={`priority-${task.priority}`}>{task.title}</span>
      {task.tags.map((tag) => (
        <Tag key={tag} name={tag} />
      ))}
      <button onClick={() => onToggle(task.id)}>{label}</button>
    </li>
  );
}

/** A column of tasks, sorted by priority. */
export function Column({ title, tasks, onToggle, footer }: ColumnProps) {
  const sorted = useMemo(() => [...tasks].sort(byPriority), [tasks]);
  return (
    <section className="column">
      <h2>
        {title} <small>({tasks.length})</small>
      </h2>
      <ul>
        {sorted.map((task) => (
          <TaskRow key={task.id} task={task} onToggle={onToggle} />
        ))}
      </ul>
      {footer}
    </section>
  );
}

/** Keeps the board in sync with the server. */
export class BoardSync {
  private pending = new Set<number>();
  static readonly retries = 3;

  constructor(private readonly board: string) {}

  /** Queues a task's change. */
  mark(id: number): void {
    this.pending.add(id);
  }

  /** Sends every queued change; returns how many were sent. */
  async flush(tasks: Task[]): Promise<number> {
    const changed = tasks.filter((t) => this.pending.has(t.id));
    for (let attempt = 0; attempt < BoardSync.retries; attempt++) {
      try {
        await api.save(this.board, changed);
        this.pending.clear();
        return changed.length;
      } catch {
        continue;
      }
    }
    return 0;
  }

  get size(): number {
    return this.pending.size;
  }
}

/** The whole board: a filter, an input and two columns. */
export default function TaskBoard({ initial, board }: { initial: Task[]; board: string }) {
  const [tasks, dispatch] = useReducer(tasksReducer, initial);
  const [filter, setFilter] = useState<Filter>(Filter.All);
  const [draft, setDraft] = useState("");
  const query = useDebounced(draft);
  const sync = useMemo(() => new BoardSync(board), [board]);
  renderCount += 1;

  const visible = tasks.filter((t) => {
    if (filter === Filter.Open && t.done) return false;
    if (filter === Filter.Done && !t.done) return false;
    return t.title.toLowerCase().includes(query.toLowerCase());
  });

  const toggle = useCallback(
    (id: number) => {
      dispatch({ type: "toggle", id });
      sync.mark(id);
    },
    [sync],
  );

  function addTask(title: string) {
    const task: Task = { id: Date.now(), title: title.slice(0, MAX_TITLE), priority: "normal", done: false, tags: [] };
    dispatch({ type: "add", task });
    sync.mark(task.id);
    setDraft("");
  }

  return (
    <div className="board" data-renders={renderCount}>
      <select value={filter} onChange={(e) => setFilter(e.target.value as Filter)}>
        <option value={Filter.All}>All</option>
        <option value={Filter.Open}>Open</option>
        <option value={Filter.Done}>Done</option>
      </select>
      <input value={draft} onChange={(e) => setDraft(e.target.value)} onKeyDown={(e) => e.key === "Enter" && addTask(draft)} />
      <Column title="Open" tasks={visible.filter((t) => !t.done)} onToggle={toggle} />
      <Column
        title="Done"
        tasks={visible.filter((t) => t.done)}
        onToggle={toggle}
        footer={<button onClick={() => dispatch({ type: "clear-done" })}>Clear</button>}
      />
    </div>
  );
}
