// Rate limiting for an HTTP gateway: token buckets per client, with a sliding report.
package gateway.limits

import scala.annotation.tailrec
import scala.collection.mutable
import scala.concurrent.duration._

/** How a request that exceeds its budget is treated. */
sealed trait Verdict {
  def allowed: Boolean
}

object Verdict {
  /** The request goes through. */
  case object Allow extends Verdict {
    val allowed = true
  }

  /** The request waits, at most `retryAfter`. */
  final case class Delay(retryAfter: FiniteDuration) extends Verdict {
    val allowed = false
  }

  case class Reject(reason: String) extends Verdict {
    val allowed = false
  }
}

/** A clock that can be replaced in tests. */
trait Clock {
  def nanos(): Long

  /** Milliseconds since the clock's epoch. */
  def millis(): Long = nanos() / 1000000L
}

/** The system clock. */
object SystemClock extends Clock {
  override def nanos(): Long = System.nanoTime()
}

/**
 * A token bucket: `capacity` tokens, refilled at `perSecond`.
 *
 * @param capacity  the most tokens the bucket holds
 * @param perSecond tokens added per second
 */
final class TokenBucket(val capacity: Int, val perSecond: Double)(implicit clock: Clock) {
  private var tokens: Double = capacity.toDouble
  private var lastRefill: Long = clock.nanos()

  /** Tokens available now, after refilling. */
  def available: Int = {
    refill()
    tokens.toInt
  }

  private def refill(): Unit = {
    val now = clock.nanos()
    val elapsed = (now - lastRefill).toDouble / 1e9
    tokens = math.min(capacity.toDouble, tokens + elapsed * perSecond)
    lastRefill = now
  }

  /** Takes one token if there is one. */
  def tryTake(): Boolean = tryTake(1)

  def tryTake(count: Int): Boolean = {
    refill()
    if (tokens >= count) {
      tokens -= count
      true
    } else {
      false
    }
  }

  /** How long until `count` tokens are there. */
  def waitFor(count: Int): FiniteDuration = {
    refill()
    val missing = math.max(0.0, count - tokens)
    (missing / perSecond * 1000).ceil.toLong.millis
  }
}

/** The settings of one client tier. */
final case class Tier(name: String, burst: Int, perSecond: Double, maxDelay: FiniteDuration)

object Tier {
  /** The tier of clients with no key. */
  val Anonymous: Tier = Tier("anonymous", burst = 10, perSecond = 1.0, maxDelay = 0.seconds)

  val Partner: Tier = Tier("partner", burst = 200, perSecond = 50.0, maxDelay = 2.seconds)

  def byName(name: String): Option[Tier] =
    List(Anonymous, Partner).find(_.name == name)
}

/**
 * The gateway's limiter: one bucket per client key.
 */
class RateLimiter(tierOf: String => Tier)(implicit clock: Clock) {
  import RateLimiter._

  type Key = String

  private val buckets = mutable.HashMap.empty[Key, TokenBucket]
  private val rejected = mutable.HashMap.empty[Key, Int].withDefaultValue(0)

  private def bucket(key: Key): TokenBucket =
    buckets.getOrElseUpdate(key, {
      val tier = tierOf(key)
      new TokenBucket(tier.burst, tier.perSecond)
    })

  /** Decides what happens to one request of `key`. */
  def check(key: Key): Verdict = check(key, cost = 1)

  def check(key: Key, cost: Int): Verdict = {
    val tier = tierOf(key)
    val b = bucket(key)
    if (cost > tier.burst) {
      rejected(key) += 1
      Verdict.Reject(s"cost $cost exceeds the burst of ${tier.name}")
    } else if (b.tryTake(cost)) {
      Verdict.Allow
    } else {
      val wait = b.waitFor(cost)
      if (wait <= tier.maxDelay) Verdict.Delay(wait)
      else {
        rejected(key) += 1
        Verdict.Reject("over the limit")
      }
    }
  }

  /** The keys rejected most, most first. */
  def worst(n: Int): List[(Key, Int)] = {
    @tailrec
    def take(rest: List[(Key, Int)], acc: List[(Key, Int)], left: Int): List[(Key, Int)] =
      rest match {
        case head :: tail if left > 0 => take(tail, head :: acc, left - 1)
        case _                        => acc.reverse
      }

    take(rejected.toList.sortBy { case (_, count) => -count }, Nil, n)
  }

  @deprecated("use worst(n)", "2.4.0")
  def topOffenders: List[Key] = worst(DefaultReport).map(_._1)
}

object RateLimiter {
  /** How many keys a report lists by default. */
  final val DefaultReport = 10

  /** A limiter where every client is in one tier. */
  def uniform(tier: Tier)(implicit clock: Clock): RateLimiter =
    new RateLimiter(_ => tier)

  implicit class VerdictOps(private val verdict: Verdict) extends AnyVal {
    /** The HTTP status a verdict maps to. */
    def status: Int = verdict match {
      case Verdict.Allow       => 200
      case Verdict.Delay(_)    => 202
      case Verdict.Reject(_)   => 429
    }
  }
}
