import React from "react";
import { format } from "./format";

/** Default page size. */
export const PAGE_SIZE = 20;

let counter = 0;

/**
 * A list of widgets.
 */
export class WidgetList extends React.Component {
  static defaultProps = { items: [] };

  /** Renders one row. */
  renderRow(item) {
    return <li key={item.id}>{format(item)}</li>;
  }

  render() {
    return <ul>{this.props.items.map((i) => this.renderRow(i))}</ul>;
  }
}

export const Badge = ({ label }) => <span className="badge">{label}</span>;

function* ids() {
  while (true) yield counter++;
}

export default function App() {
  return <WidgetList items={[]} />;
}
