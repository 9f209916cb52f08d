"""Order processing."""

import dataclasses
from typing import Optional

TAX_RATE = 0.2
_registry = {}


def register(cls):
    """Registers a handler class."""
    _registry[cls.__name__] = cls
    return cls


@dataclasses.dataclass(frozen=True)
class LineItem:
    """One line of an order."""

    sku: str
    price: float

    @property
    def total(self) -> float:
        return self.price * (1 + TAX_RATE)


@register
class OrderHandler:
    """Handles orders."""

    retries = 3

    def __init__(self, store):
        self.store = store

    # Places an order.
    async def place(self, items: list[LineItem], note: Optional[str] = None) -> str:
        """Places the order and returns its id."""
        return await self.store.save(items)

    class Error(Exception):
        """A failed order."""

        def describe(self):
            return str(self)


def total(items):
    return sum(i.total for i in items)
