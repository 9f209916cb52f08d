# frozen_string_literal: true

require "bigdecimal"
require "time"
require_relative "billing/errors"

# Billing turns usage records into invoices, applies discounts and taxes, and renders
# the result for the ledger.
module Billing
  # The currency every amount is kept in unless an account says otherwise.
  DEFAULT_CURRENCY = "EUR"

  # Tax rates by region code, as fractions.
  TAX_RATES = {
    "DE" => BigDecimal("0.19"),
    "FR" => BigDecimal("0.20"),
    "NL" => BigDecimal("0.21"),
  }.freeze

  # One billable line: a product code, how many, and the price of one.
  LineItem = Struct.new(:sku, :quantity, :unit_price, keyword_init: true) do
    # The line's total before discounts.
    def subtotal
      unit_price * quantity
    end

    def to_s
      format("%-12s %4d x %10.2f", sku, quantity, unit_price)
    end
  end

  # Something that can take an amount off an invoice. Includers define #apply_to.
  module Discount
    # The amount taken off `total`.
    #
    # @param total [BigDecimal] the amount before this discount
    # @return [BigDecimal]
    def apply_to(total)
      raise NotImplementedError, "#{self.class} must define apply_to"
    end

    def describe
      self.class.name.split("::").last
    end
  end

  # A fixed percentage off the whole invoice.
  class PercentOff
    include Discount

    attr_reader :percent

    def initialize(percent)
      raise ArgumentError, "percent out of range: #{percent}" unless (0..100).cover?(percent)

      @percent = BigDecimal(percent.to_s)
    end

    def apply_to(total)
      (total * percent / 100).round(2)
    end
  end

  # A fixed amount off, never more than the invoice itself.
  class AmountOff
    include Discount

    def initialize(amount)
      @amount = BigDecimal(amount.to_s)
    end

    def apply_to(total)
      [@amount, total].min
    end
  end

  # An invoice for one account and period. Lines are added, then the invoice is closed,
  # after which it cannot change.
  class Invoice
    include Comparable

    # Raised when a closed invoice is changed.
    class ClosedError < Error
      def initialize(number)
        super("invoice #{number} is closed")
      end
    end

    attr_reader :number, :account, :lines, :discounts

    class << self
      # The next invoice number for `account`, from the sequence the ledger keeps.
      def next_number(account, sequence:)
        "#{account.prefix}-#{sequence.next.to_s.rjust(6, '0')}"
      end

      # Builds an invoice from raw usage rows (hashes with :sku, :quantity and :price).
      def from_usage(account, rows, sequence:)
        invoice = new(next_number(account, sequence: sequence), account)
        rows.each do |row|
          invoice.add(LineItem.new(sku: row.fetch(:sku), quantity: row.fetch(:quantity), unit_price: BigDecimal(row.fetch(:price).to_s)))
        end
        invoice
      end
    end

    def initialize(number, account)
      @number = number
      @account = account
      @lines = []
      @discounts = []
      @closed_at = nil
    end

    # Adds a line; refused once the invoice is closed.
    def add(line)
      guard_open!
      @lines << line
      self
    end

    def discount(with)
      guard_open!
      @discounts << with
      self
    end

    # The sum of the lines before discounts and tax.
    def subtotal
      @lines.sum(BigDecimal("0"), &:subtotal)
    end

    # The amount after every discount, in the order they were given.
    def discounted
      @discounts.reduce(subtotal) do |running, discount|
        (running - discount.apply_to(running)).round(2)
      end
    end

    def tax
      rate = TAX_RATES.fetch(account.region) { BigDecimal("0") }
      (discounted * rate).round(2)
    end

    def total
      (discounted + tax).round(2)
    end

    def close(at: Time.now)
      guard_open!
      @closed_at = at
      freeze
    end

    def closed?
      !@closed_at.nil?
    end

    def <=>(other)
      number <=> other.number
    end

    # Formats the invoice for the ledger: one line per item, then the totals.
    def render(width: 40)
      rule = "-" * width
      amount = ->(label, value) { format("%-#{width - 12}s %11.2f", label, value) }
      body = @lines.map(&:to_s)
      body << rule
      body << amount.call("Subtotal", subtotal)
      @discounts.each { |d| body << amount.call(d.describe, -d.apply_to(subtotal)) }
      body << amount.call("Tax", tax)
      body << amount.call("Total", total)
      body.join("\n")
    end

    private

    def guard_open!
      raise ClosedError, number if closed?
    end
  end

  # Collects invoices for a billing run and reports on them.
  class Run
    def initialize(accounts, sequence:)
      @accounts = accounts
      @sequence = sequence
      @invoices = {}
    end

    def bill(usage_by_account)
      usage_by_account.each do |account_id, rows|
        account = @accounts.fetch(account_id)
        @invoices[account_id] = Invoice.from_usage(account, rows, sequence: @sequence)
      end
      @invoices.values
    end

    # The grand total of the run, per currency.
    def totals
      @invoices.values.group_by { |i| i.account.currency || DEFAULT_CURRENCY }.transform_values do |group|
        group.sum(BigDecimal("0"), &:total)
      end
    end

    # Closes every invoice at the same instant.
    private def close_all(at)
      @invoices.each_value { |invoice| invoice.close(at: at) }
    end

    def finish
      close_all(Time.now)
      @invoices.values.sort
    end
  end

  # Rounds `amount` to cents, half up, as the ledger wants.
  def self.cents(amount)
    BigDecimal(amount.to_s).round(2, BigDecimal::ROUND_HALF_UP)
  end
end

# The entry point of `rake billing:run`.
def run_billing(accounts, usage, sequence:)
  run = Billing::Run.new(accounts, sequence: sequence)
  run.bill(usage)
  run.finish
end
