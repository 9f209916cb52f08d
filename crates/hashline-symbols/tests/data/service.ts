import { Injectable } from "@angular/core";
import type { Http } from "./http";

/** A user. */
export interface User {
  id: number;
  name: string;
}

export type UserId = User["id"];

export enum Role {
  Admin,
  Member,
}

const DEFAULT_ROLE = Role.Member;

/** Talks to the user API. */
@Injectable({ providedIn: "root" })
export class UserService {
  private cache = new Map<UserId, User>();

  constructor(private http: Http) {}

  /** Loads one user. */
  async load(id: UserId): Promise<User> {
    const cached = this.cache.get(id);
    if (cached) return cached;
    return this.http.get<User>(`/users/${id}`);
  }

  @Deprecated()
  clear(): void {
    this.cache.clear();
  }
}

export abstract class Repo<T> {
  abstract find(id: number): T | undefined;
}

export namespace Users {
  export function isAdmin(u: User): boolean {
    return u.name === "root";
  }
}

export const toName = (u: User): string => u.name;
