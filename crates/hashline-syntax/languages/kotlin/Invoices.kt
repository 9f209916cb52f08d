// Invoicing for a small subscription service: line items, taxes, dunning.
package com.example.billing

import java.math.BigDecimal
import java.math.RoundingMode
import java.time.LocalDate
import java.time.temporal.ChronoUnit

/** The number of decimal places every amount is rounded to. */
const val SCALE = 2

/** A currency amount paired with its ISO code. */
typealias Priced = Pair<BigDecimal, String>

/**
 * Where an invoice is in its life.
 */
enum class InvoiceStatus(val terminal: Boolean) {
    DRAFT(false),
    SENT(false),
    PAID(true),
    VOID(true);

    /** Whether an invoice in this state can still change. */
    fun editable(): Boolean = this == DRAFT
}

/**
 * Something that can be priced into invoice lines.
 */
interface Billable {
    /** The line's description on the invoice. */
    val description: String

    fun amount(on: LocalDate): BigDecimal

    /** Tax is charged unless an item says otherwise. */
    fun taxable(): Boolean = true
}

/** One line of an invoice. */
data class LineItem(
    override val description: String,
    val unitPrice: BigDecimal,
    val quantity: Int = 1,
) : Billable {
    override fun amount(on: LocalDate): BigDecimal =
        unitPrice.multiply(BigDecimal(quantity)).setScale(SCALE, RoundingMode.HALF_UP)
}

/** A recurring plan, prorated over a partial period. */
data class Subscription(
    override val description: String,
    val monthly: BigDecimal,
    val startsOn: LocalDate,
) : Billable {
    override fun amount(on: LocalDate): BigDecimal {
        val days = ChronoUnit.DAYS.between(startsOn, on).coerceIn(0, 30)
        return monthly.multiply(BigDecimal(days)).divide(BigDecimal(30), SCALE, RoundingMode.HALF_UP)
    }

    override fun taxable(): Boolean = false
}

/** Why a charge was refused. */
sealed interface Decline {
    data class Insufficient(val shortBy: BigDecimal) : Decline
    data class Expired(val on: LocalDate) : Decline
    object Fraud : Decline
}

/**
 * An invoice: its lines, its tax rate and its status.
 */
class Invoice(val number: String, val issuedOn: LocalDate, private val taxRate: BigDecimal) {
    private val lines = mutableListOf<Billable>()

    var status: InvoiceStatus = InvoiceStatus.DRAFT
        private set

    /** Adds a line; only drafts take new lines. */
    fun add(item: Billable): Invoice {
        check(status.editable()) { "invoice $number is $status" }
        lines += item
        return this
    }

    fun add(description: String, price: BigDecimal, quantity: Int = 1): Invoice =
        add(LineItem(description, price, quantity))

    /** The sum before tax. */
    fun subtotal(): BigDecimal =
        lines.fold(BigDecimal.ZERO) { total, line -> total + line.amount(issuedOn) }

    fun tax(): BigDecimal {
        fun taxOf(line: Billable): BigDecimal =
            if (line.taxable()) line.amount(issuedOn).multiply(taxRate) else BigDecimal.ZERO

        val raw = lines.fold(BigDecimal.ZERO) { total, line -> total + taxOf(line) }
        return raw.setScale(SCALE, RoundingMode.HALF_UP)
    }

    fun total(): BigDecimal = subtotal() + tax()

    @Deprecated("Invoices are sent by the mailer", ReplaceWith("Mailer.send(this)"))
    fun markSent() {
        status = InvoiceStatus.SENT
    }

    /** Settles the invoice if the payment covers it; says why not otherwise. */
    fun settle(paid: BigDecimal, cardExpires: LocalDate): Decline? {
        if (cardExpires.isBefore(issuedOn)) {
            return Decline.Expired(cardExpires)
        }
        val due = total()
        if (paid < due) {
            return Decline.Insufficient(due - paid)
        }
        status = InvoiceStatus.PAID
        return null
    }

    companion object {
        /** The default rate where no region applies. */
        val DEFAULT_TAX: BigDecimal = BigDecimal("0.20")

        @JvmStatic
        fun draft(number: String, on: LocalDate): Invoice = Invoice(number, on, DEFAULT_TAX)
    }
}

/**
 * Reminders for unpaid invoices, by days overdue.
 */
object Dunning {
    private const val GRACE_DAYS = 7L

    /** The reminder an invoice is due for, if any. */
    fun reminder(invoice: Invoice, today: LocalDate): String? {
        val overdue = ChronoUnit.DAYS.between(invoice.issuedOn, today) - GRACE_DAYS
        return when {
            invoice.status != InvoiceStatus.SENT -> null
            overdue <= 0 -> null
            overdue < 14 -> "friendly"
            overdue < 30 -> "firm"
            else -> "final"
        }
    }

    fun schedule(invoices: List<Invoice>, today: LocalDate): Map<String, List<String>> {
        val byKind = mutableMapOf<String, MutableList<String>>()
        for (invoice in invoices) {
            val kind = reminder(invoice, today) ?: continue
            byKind.getOrPut(kind) { mutableListOf() }.add(invoice.number)
        }
        return byKind
    }
}

/** The amount as text, with its currency code. */
fun BigDecimal.formatted(currency: String = "EUR"): String =
    setScale(SCALE, RoundingMode.HALF_UP).toPlainString() + " " + currency

/** Totals per status, for the dashboard. */
fun summarize(invoices: Iterable<Invoice>): Map<InvoiceStatus, BigDecimal> {
    val sums = mutableMapOf<InvoiceStatus, BigDecimal>()
    for (invoice in invoices) {
        sums.merge(invoice.status, invoice.total()) { a, b -> a + b }
    }
    return sums
}

fun main() {
    val invoice = Invoice.draft("INV-1001", LocalDate.of(2026, 3, 1))
        .add("Setup", BigDecimal("49.00"))
        .add(Subscription("Pro plan", BigDecimal("30.00"), LocalDate.of(2026, 2, 14)))
    println(invoice.total().formatted())
}
