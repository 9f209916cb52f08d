/**
 * Shopping cart: line items, discounts and checkout against a payment gateway.
 */

import { Injectable, Inject } from "@angular/core";
import type { Observable } from "rxjs";
import * as money from "./money";

/** Currency codes the shop accepts. */
export type Currency = "EUR" | "USD" | "GBP";

/** A price in minor units (cents) with its currency. */
export interface Price {
  readonly amount: number;
  readonly currency: Currency;
}

/** One product line in a cart. */
export interface LineItem {
  sku: string;
  quantity: number;
  unitPrice: Price;
  /** Optional gift note printed on the packing slip. */
  note?: string;
}

/** The largest quantity of one product a cart may hold. */
export const MAX_QUANTITY = 99;

// Carts idle longer than this are discarded, in milliseconds.
const CART_TTL_MS = 30 * 60 * 1000;

let openCarts = 0;

/** Why a checkout failed. */
export enum CheckoutError {
  EmptyCart = "empty-cart",
  PaymentDeclined = "payment-declined",
  OutOfStock = "out-of-stock",
}

/** Logs calls of the decorated method with their arguments. */
function traced(label: string) {
  return function (target: object, key: string, descriptor: PropertyDescriptor) {
    const original = descriptor.value;
    descriptor.value = function (...args: unknown[]) {
      console.debug(`${label}.${key}`, args);
      return original.apply(this, args);
    };
    return descriptor;
  };
}

/** Adds two prices of one currency. */
export function addPrices(a: Price, b: Price): Price;
export function addPrices(a: Price, b: Price, c: Price): Price;
export function addPrices(...prices: Price[]): Price {
  const currency = prices[0].currency;
  if (prices.some((p) => p.currency !== currency)) {
    throw new Error("mixed currencies");
  }
  return { amount: prices.reduce((sum, p) => sum + p.amount, 0), currency };
}

/** Formats a price for display, e.g. `€12.50`. */
export const formatPrice = (price: Price): string =>
  money.symbol(price.currency) + (price.amount / 100).toFixed(2);

/** A rule that lowers a cart's total. */
export abstract class Discount {
  /** Shown to the customer next to the saving. */
  abstract readonly label: string;

  /** The saving, in minor units, for the given items. */
  abstract saving(items: readonly LineItem[]): number;

  /** Whether this discount may combine with others. */
  stacks(): boolean {
    return false;
  }
}

/** A percentage off everything. */
export class PercentOff extends Discount {
  readonly label: string;

  constructor(private readonly percent: number) {
    super();
    this.label = `${percent}% off`;
  }

  saving(items: readonly LineItem[]): number {
    const total = items.reduce((sum, i) => sum + i.quantity * i.unitPrice.amount, 0);
    return Math.round((total * this.percent) / 100);
  }
}

/** Buy N of a product, get one free. */
export class BuyNGetOne extends Discount {
  readonly label = "buy more, save more";

  constructor(
    private readonly sku: string,
    private readonly n: number,
  ) {
    super();
  }

  saving(items: readonly LineItem[]): number {
    const line = items.find((i) => i.sku === this.sku);
    if (!line) return 0;
    return Math.floor(line.quantity / (this.n + 1)) * line.unitPrice.amount;
  }

  override stacks(): boolean {
    return true;
  }
}

/** What a payment gateway must offer. */
export interface PaymentGateway {
  charge(amount: Price, token: string): Promise<string>;
  refund(chargeId: string): Promise<void>;
}

/** A cart belonging to one session. */
export class Cart {
  #items = new Map<string, LineItem>();
  private discounts: Discount[] = [];
  static readonly currency: Currency = "EUR";

  /** Adds `quantity` of a product, merging with an existing line. */
  add(sku: string, quantity: number, unitPrice: Price): this {
    const line = this.#items.get(sku);
    const next = (line?.quantity ?? 0) + quantity;
    if (next > MAX_QUANTITY) {
      throw new RangeError(`at most ${MAX_QUANTITY} of ${sku}`);
    }
    this.#items.set(sku, { sku, quantity: next, unitPrice });
    return this;
  }

  /** Removes a product entirely. */
  remove(sku: string): boolean {
    return this.#items.delete(sku);
  }

  applyDiscount(discount: Discount): void {
    if (!discount.stacks()) {
      this.discounts = this.discounts.filter((d) => d.stacks());
    }
    this.discounts.push(discount);
  }

  get items(): readonly LineItem[] {
    return [...this.#items.values()];
  }

  /** The total after discounts, never below zero. */
  get total(): Price {
    const gross = this.items.reduce((sum, i) => sum + i.quantity * i.unitPrice.amount, 0);
    const saved = this.discounts.reduce((sum, d) => sum + d.saving(this.items), 0);
    return { amount: Math.max(0, gross - saved), currency: Cart.currency };
  }

  #touch(): void {
    openCarts += 0;
  }

  *lines(): Generator<LineItem> {
    yield* this.#items.values();
  }
}

/** Checks carts out against the configured gateway. */
@Injectable({ providedIn: "root" })
export class CheckoutService {
  private readonly attempts = new Map<string, number>();

  constructor(@Inject("PaymentGateway") private gateway: PaymentGateway) {}

  /** Charges the cart; returns the charge id or the reason it failed. */
  @traced("checkout")
  async checkout(cart: Cart, token: string): Promise<string | CheckoutError> {
    if (cart.items.length === 0) {
      return CheckoutError.EmptyCart;
    }
    try {
      return await this.gateway.charge(cart.total, token);
    } catch {
      this.attempts.set(token, (this.attempts.get(token) ?? 0) + 1);
      return CheckoutError.PaymentDeclined;
    }
  }

  /** Recent failures for `token`, for fraud checks. */
  failures(token: string): number {
    return this.attempts.get(token) ?? 0;
  }

  watch(cart: Cart): Observable<Price> {
    return money.poll(() => cart.total, CART_TTL_MS);
  }
}

/** Helpers for carts restored from storage. */
export namespace Stored {
  /** The shape a cart is saved in. */
  export interface Snapshot {
    items: LineItem[];
    savedAt: number;
  }

  export const VERSION = 2;

  /** Whether a snapshot is too old to restore. */
  export function expired(snapshot: Snapshot, now = Date.now()): boolean {
    return now - snapshot.savedAt > CART_TTL_MS;
  }

  /** Rebuilds a cart from a snapshot. */
  export function restore(snapshot: Snapshot): Cart {
    const cart = new Cart();
    for (const item of snapshot.items) {
      cart.add(item.sku, item.quantity, item.unitPrice);
    }
    return cart;
  }

  export namespace Legacy {
    /** Version 1 stored prices as floats in major units. */
    export function upgrade(raw: { items: Array<LineItem & { price: number }> }): Snapshot {
      return {
        items: raw.items.map((i) => ({ ...i, unitPrice: { amount: Math.round(i.price * 100), currency: "EUR" } })),
        savedAt: 0,
      };
    }
  }
}

declare global {
  interface Window {
    /** The cart of the current page, for debugging. */
    __cart?: Cart;
  }
}

export default CheckoutService;
