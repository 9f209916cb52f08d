<?php

declare(strict_types=1);

namespace Acme\Warehouse;

use Acme\Warehouse\Events\StockChanged;
use Psr\Log\LoggerInterface;
use DateTimeImmutable;

/** How many units a reservation holds when none is asked for. */
const DEFAULT_RESERVATION = 1;

/**
 * Where a stock level comes from: counted by hand, or derived from movements.
 */
enum Source: string
{
    case Counted = 'counted';
    case Derived = 'derived';

    /** The label shown in reports. */
    public function label(): string
    {
        return match ($this) {
            Source::Counted => 'counted on site',
            Source::Derived => 'from movements',
        };
    }
}

/**
 * Anything that stores stock levels by SKU.
 */
interface StockStore
{
    public const MAX_SKU_LENGTH = 32;

    /** The units on hand for `$sku`, or 0 when it is unknown. */
    public function onHand(string $sku): int;

    public function put(string $sku, int $units, Source $source): void;
}

/**
 * Logs each change through a PSR-3 logger.
 */
trait LogsChanges
{
    private ?LoggerInterface $logger = null;

    public function setLogger(LoggerInterface $logger): void
    {
        $this->logger = $logger;
    }

    protected function logChange(string $sku, int $before, int $after): void
    {
        $this->logger?->info('stock {sku}: {before} -> {after}', [
            'sku' => $sku,
            'before' => $before,
            'after' => $after,
        ]);
    }
}

/**
 * A stock store kept in memory, for tests and small shops.
 */
final class MemoryStore implements StockStore
{
    /** @var array<string, int> */
    private array $levels = [];

    public function onHand(string $sku): int
    {
        return $this->levels[$sku] ?? 0;
    }

    public function put(string $sku, int $units, Source $source): void
    {
        $this->levels[$sku] = $units;
    }
}

#[\Attribute(\Attribute::TARGET_METHOD)]
final class Audited
{
    public function __construct(public readonly string $reason = '')
    {
    }
}

/**
 * The inventory of one warehouse: receives, reserves and ships stock, and tells
 * listeners about every change.
 */
class Inventory
{
    use LogsChanges;

    public const LOW_STOCK = 5;

    /** @var list<callable(StockChanged): void> */
    private array $listeners = [];

    /** @var array<string, int> reserved units by SKU */
    private array $reserved = [];

    public function __construct(
        private readonly StockStore $store,
        private readonly string $warehouse,
    ) {
    }

    /**
     * Builds an inventory over a fresh memory store.
     */
    public static function inMemory(string $warehouse): self
    {
        return new self(new MemoryStore(), $warehouse);
    }

    public function onChange(callable $listener): void
    {
        $this->listeners[] = $listener;
    }

    /**
     * Adds received units to the stock.
     *
     * @throws \InvalidArgumentException when `$units` is not positive
     */
    #[Audited('goods in')]
    public function receive(string $sku, int $units): int
    {
        if ($units <= 0) {
            throw new \InvalidArgumentException("cannot receive {$units} units of {$sku}");
        }
        return $this->change($sku, $units);
    }

    /** Holds units for an order; false when there are not enough. */
    public function reserve(string $sku, int $units = DEFAULT_RESERVATION): bool
    {
        if ($this->available($sku) < $units) {
            return false;
        }
        $this->reserved[$sku] = ($this->reserved[$sku] ?? 0) + $units;
        return true;
    }

    #[Audited('goods out')]
    public function ship(string $sku, int $units): int
    {
        $held = $this->reserved[$sku] ?? 0;
        $this->reserved[$sku] = max(0, $held - $units);
        return $this->change($sku, -$units);
    }

    public function available(string $sku): int
    {
        return $this->store->onHand($sku) - ($this->reserved[$sku] ?? 0);
    }

    /**
     * The SKUs at or under the low-stock mark, lowest first.
     *
     * @param list<string> $skus
     * @return list<string>
     */
    public function lowStock(array $skus): array
    {
        $low = array_filter($skus, fn (string $sku): bool => $this->available($sku) <= self::LOW_STOCK);
        usort($low, fn (string $a, string $b): int => $this->available($a) <=> $this->available($b));
        return array_values($low);
    }

    private function change(string $sku, int $delta): int
    {
        $before = $this->store->onHand($sku);
        $after = $before + $delta;
        if ($after < 0) {
            throw new \RuntimeException("{$sku} would go below zero in {$this->warehouse}");
        }
        $this->store->put($sku, $after, Source::Derived);
        $this->logChange($sku, $before, $after);
        $event = new StockChanged($this->warehouse, $sku, $before, $after, new DateTimeImmutable());
        foreach ($this->listeners as $listener) {
            $listener($event);
        }
        return $after;
    }
}

/**
 * Renders a stock report as fixed-width text.
 *
 * @param array<string, int> $levels
 */
function render_report(array $levels, int $width = 40): string
{
    function pad_sku(string $sku, int $width): string
    {
        return str_pad($sku, $width - 10);
    }

    $lines = [];
    foreach ($levels as $sku => $units) {
        $lines[] = pad_sku($sku, $width) . str_pad((string) $units, 10, ' ', STR_PAD_LEFT);
    }
    return implode("\n", $lines);
}
