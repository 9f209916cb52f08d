// Warehouse inventory: stock levels, reservations and reorder rules.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Text.Json.Serialization;

namespace Warehouse.Stock
{
    /// <summary>
    /// How a stock item is counted.
    /// </summary>
    public enum UnitOfMeasure
    {
        Each,
        Box,
        Pallet,
    }

    /// <summary>A stock-keeping unit code, validated on creation.</summary>
    public readonly record struct Sku(string Code)
    {
        /// <summary>The longest code a label printer accepts.</summary>
        public const int MaxLength = 24;

        public static Sku Parse(string text)
        {
            if (string.IsNullOrWhiteSpace(text) || text.Length > MaxLength)
            {
                throw new FormatException($"not a SKU: '{text}'");
            }
            return new Sku(text.Trim().ToUpperInvariant());
        }

        public override string ToString() => Code;
    }

    /// <summary>Raised when a level drops under its reorder point.</summary>
    public delegate void ReorderHandler(Sku sku, int onHand);

    /// <summary>
    /// Something that can hold stock: a shelf, a bin, a truck.
    /// </summary>
    public interface IStockLocation
    {
        /// <summary>The location's display name.</summary>
        string Name { get; }

        int Quantity(Sku sku);

        void Put(Sku sku, int count);

        bool Take(Sku sku, int count);
    }

    /// <summary>A quantity set aside for an order until it ships or expires.</summary>
    public sealed record Reservation(Guid OrderId, Sku Sku, int Count, DateTimeOffset Until);

    /// <summary>
    /// One bin of a warehouse: levels per SKU, reservations against them.
    /// </summary>
    [Serializable]
    public class Bin : IStockLocation
    {
        private readonly Dictionary<Sku, int> levels = new();
        private readonly List<Reservation> reservations = new();

        /// <summary>How long a reservation holds by default.</summary>
        public static readonly TimeSpan DefaultHold = TimeSpan.FromHours(48);

        public Bin(string name)
        {
            Name = name;
        }

        public Bin(string name, IEnumerable<KeyValuePair<Sku, int>> opening) : this(name)
        {
            foreach (var (sku, count) in opening)
            {
                Put(sku, count);
            }
        }

        /// <inheritdoc />
        public string Name { get; }

        /// <summary>Fires when a take leaves a SKU under its reorder point.</summary>
        public event ReorderHandler? BelowReorderPoint;

        [JsonIgnore]
        public int ReorderPoint { get; set; } = 10;

        public int Quantity(Sku sku) => levels.TryGetValue(sku, out var count) ? count : 0;

        public void Put(Sku sku, int count)
        {
            if (count < 0)
            {
                throw new ArgumentOutOfRangeException(nameof(count));
            }
            levels[sku] = Quantity(sku) + count;
        }

        /// <summary>
        /// Takes <paramref name="count"/> units if that many are free of reservations.
        /// </summary>
        public bool Take(Sku sku, int count)
        {
            var free = Quantity(sku) - Reserved(sku, DateTimeOffset.UtcNow);
            if (free < count)
            {
                return false;
            }
            levels[sku] = Quantity(sku) - count;
            if (levels[sku] < ReorderPoint)
            {
                BelowReorderPoint?.Invoke(sku, levels[sku]);
            }
            return true;
        }

        public Reservation Reserve(Guid orderId, Sku sku, int count) =>
            Reserve(orderId, sku, count, DefaultHold);

        public Reservation Reserve(Guid orderId, Sku sku, int count, TimeSpan hold)
        {
            var reservation = new Reservation(orderId, sku, count, DateTimeOffset.UtcNow + hold);
            reservations.Add(reservation);
            return reservation;
        }

        /// <summary>Units of a SKU held by reservations still in force at <paramref name="now"/>.</summary>
        public int Reserved(Sku sku, DateTimeOffset now)
        {
            bool Live(Reservation r) => r.Sku == sku && r.Until > now;

            int total = 0;
            foreach (var r in reservations.Where(Live))
            {
                total += r.Count;
            }
            return total;
        }

        [Obsolete("Use Reserved(sku, now): expired reservations were counted.")]
        public int Reserved(Sku sku) => reservations.Where(r => r.Sku == sku).Sum(r => r.Count);

        /// <summary>Drops reservations that ran out before <paramref name="now"/>.</summary>
        public int Expire(DateTimeOffset now) => reservations.RemoveAll(r => r.Until <= now);

        /// <summary>A line of the bin's stock report.</summary>
        public struct ReportLine
        {
            public Sku Sku;
            public int OnHand;
            public int Reserved;

            public ReportLine(Sku sku, int onHand, int reserved)
            {
                Sku = sku;
                OnHand = onHand;
                Reserved = reserved;
            }

            public readonly int Free => OnHand - Reserved;
        }

        public IEnumerable<ReportLine> Report(DateTimeOffset now)
        {
            foreach (var (sku, onHand) in levels.OrderBy(pair => pair.Key.Code))
            {
                yield return new ReportLine(sku, onHand, Reserved(sku, now));
            }
        }
    }

    /// <summary>
    /// Reorder rules across bins: what to buy and how much.
    /// </summary>
    public static class Reorder
    {
        private const int MinimumOrder = 5;

        /// <summary>The quantity to order to bring a level back to its target.</summary>
        public static int Suggest(int onHand, int target, UnitOfMeasure unit)
        {
            int perUnit = unit switch
            {
                UnitOfMeasure.Box => 12,
                UnitOfMeasure.Pallet => 480,
                _ => 1,
            };
            int missing = Math.Max(0, target - onHand);
            int units = (missing + perUnit - 1) / perUnit;
            return Math.Max(units, missing > 0 ? MinimumOrder : 0);
        }

        public static IReadOnlyList<(Sku Sku, int Count)> Plan(IEnumerable<Bin> bins, int target)
        {
            var totals = new Dictionary<Sku, int>();
            foreach (var bin in bins)
            {
                foreach (var line in bin.Report(DateTimeOffset.UtcNow))
                {
                    totals[line.Sku] = totals.GetValueOrDefault(line.Sku) + line.Free;
                }
            }
            return totals
                .Select(pair => (pair.Key, Suggest(pair.Value, target, UnitOfMeasure.Each)))
                .Where(order => order.Item2 > 0)
                .ToList();
        }
    }
}
