"""A small job scheduler: queues, workers and retry policies.

Jobs are submitted to a :class:`Scheduler`, which hands them to workers in
priority order and retries failed runs according to a :class:`RetryPolicy`.
"""

from __future__ import annotations

import asyncio
import enum
import functools
import logging
from collections import deque
from dataclasses import dataclass, field
from typing import Awaitable, Callable, Optional, Protocol, TypeVar

log = logging.getLogger(__name__)

# The longest a single job may run before it is cancelled, in seconds.
DEFAULT_TIMEOUT: float = 30.0
MAX_WORKERS = 8
_next_id = 0

T = TypeVar("T")
JobFn = Callable[[], Awaitable[object]]


class Priority(enum.IntEnum):
    """How soon a job should run; lower values run first."""

    URGENT = 0
    NORMAL = 5
    IDLE = 9

    def label(self) -> str:
        """The name shown in status reports."""
        return self.name.lower()


class Clock(Protocol):
    """Anything that tells the time, so tests can use a fake one."""

    def now(self) -> float: ...

    def sleep(self, seconds: float) -> Awaitable[None]: ...


def next_job_id() -> int:
    """Returns a fresh job number, unique in this process."""
    global _next_id
    _next_id += 1
    return _next_id


def logged(fn: Callable[..., T]) -> Callable[..., T]:
    """Logs every call of `fn` at debug level."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        log.debug("calling %s", fn.__name__)
        return fn(*args, **kwargs)

    return wrapper


@dataclass(frozen=True)
class RetryPolicy:
    """How often, and how long apart, a failed job is retried."""

    attempts: int = 3
    backoff: float = 0.5
    multiplier: float = 2.0

    def delay(self, attempt: int) -> float:
        """The wait before retry number `attempt` (counted from 1)."""
        return self.backoff * self.multiplier ** (attempt - 1)

    @classmethod
    def never(cls) -> RetryPolicy:
        """A policy that never retries."""
        return cls(attempts=1)


@dataclass(order=True)
class Job:
    """One unit of work, ordered by priority and then submission."""

    priority: Priority
    seq: int
    fn: JobFn = field(compare=False)
    name: str = field(default="job", compare=False)
    retry: RetryPolicy = field(default_factory=RetryPolicy, compare=False)

    class State(enum.Enum):
        """Where a job is in its life."""

        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    @dataclass
    class Outcome:
        """What one run of a job produced."""

        state: Job.State
        value: object = None
        error: Optional[BaseException] = None

        @property
        def ok(self) -> bool:
            return self.state is Job.State.DONE

    async def run_once(self, timeout: float) -> Job.Outcome:
        """Runs the job once, turning errors and timeouts into outcomes."""
        try:
            value = await asyncio.wait_for(self.fn(), timeout)
        except asyncio.TimeoutError as err:
            return Job.Outcome(Job.State.FAILED, error=err)
        except Exception as err:  # noqa: BLE001 - a job's error is its outcome
            return Job.Outcome(Job.State.FAILED, error=err)
        return Job.Outcome(Job.State.DONE, value=value)


class SchedulerError(Exception):
    """Raised when the scheduler is used after it was closed."""


class Scheduler:
    """Runs submitted jobs on a fixed pool of workers.

    Jobs of equal priority run in submission order.
    """

    #: How many finished outcomes are kept for `history`.
    history_size = 100

    def __init__(self, workers: int = MAX_WORKERS, clock: Optional[Clock] = None):
        self._workers = min(workers, MAX_WORKERS)
        self._clock = clock
        self._queue: asyncio.PriorityQueue[Job] = asyncio.PriorityQueue()
        self._history: deque[Job.Outcome] = deque(maxlen=self.history_size)
        self._closed = False

    def __repr__(self) -> str:
        return f"Scheduler(workers={self._workers}, queued={self._queue.qsize()})"

    @property
    def closed(self) -> bool:
        """Whether `close` has been called."""
        return self._closed

    @logged
    def submit(
        self,
        fn: JobFn,
        *,
        name: str = "job",
        priority: Priority = Priority.NORMAL,
        retry: Optional[RetryPolicy] = None,
    ) -> Job:
        """Queues `fn` to run; returns the job that was queued."""
        if self._closed:
            raise SchedulerError("submit after close")
        job = Job(priority, next_job_id(), fn, name, retry or RetryPolicy())
        self._queue.put_nowait(job)
        return job

    async def _run(self, job: Job) -> Job.Outcome:
        outcome = await job.run_once(DEFAULT_TIMEOUT)
        attempt = 1
        while not outcome.ok and attempt < job.retry.attempts:
            await asyncio.sleep(job.retry.delay(attempt))
            attempt += 1
            outcome = await job.run_once(DEFAULT_TIMEOUT)
        self._history.append(outcome)
        return outcome

    async def _worker(self, index: int) -> None:
        while True:
            job = await self._queue.get()
            try:
                outcome = await self._run(job)
                log.info("worker %d: %s -> %s", index, job.name, outcome.state.value)
            finally:
                self._queue.task_done()

    async def drain(self) -> list[Job.Outcome]:
        """Runs every queued job to completion and returns their outcomes."""
        tasks = [asyncio.create_task(self._worker(i)) for i in range(self._workers)]
        await self._queue.join()
        for task in tasks:
            task.cancel()
        return list(self._history)

    def close(self) -> None:
        """Refuses further submissions; queued jobs still run."""
        self._closed = True

    @staticmethod
    def summarize(outcomes: list[Job.Outcome]) -> dict[str, int]:
        """Counts outcomes by state."""
        counts: dict[str, int] = {}
        for outcome in outcomes:
            key = outcome.state.value
            counts[key] = counts.get(key, 0) + 1
        return counts


class Batch:
    """Submits several jobs together and waits for all of them."""

    def __init__(self, scheduler: Scheduler):
        self.scheduler = scheduler
        self.jobs: list[Job] = []

    def add(self, fn: JobFn, **options) -> Batch:
        """Adds a job; returns the batch so calls chain."""
        self.jobs.append(self.scheduler.submit(fn, **options))
        return self

    async def wait(self) -> list[Job.Outcome]:
        outcomes = await self.scheduler.drain()
        mine = {job.seq for job in self.jobs}
        return [o for o, job in zip(outcomes, self.jobs) if job.seq in mine]


async def main() -> None:
    """Runs a demonstration batch and prints a summary."""
    scheduler = Scheduler(workers=2)

    async def hello() -> str:
        await asyncio.sleep(0.01)
        return "hello"

    async def broken() -> str:
        raise RuntimeError("always fails")

    batch = Batch(scheduler)
    batch.add(hello, name="hello").add(broken, name="broken", retry=RetryPolicy.never())
    outcomes = await batch.wait()
    print(Scheduler.summarize(outcomes))


if __name__ == "__main__":
    asyncio.run(main())
