--- A token-bucket rate limiter for OpenResty-style request handlers.
-- Buckets refill continuously; each request takes one token or is refused.
-- @module ratelimit

local floor = math.floor
local max, min = math.max, math.min
local cjson = require("cjson.safe")

--- How many tokens a new bucket starts with, unless the caller says.
local DEFAULT_BURST <const> = 10

--- Seconds a bucket may sit idle before `sweep` drops it.
local IDLE_SECONDS = 300

local M = {
  _VERSION = "1.4.0",
}

--- Clamps `value` into `[low, high]`.
local function clamp(value, low, high)
  return max(low, min(high, value))
end

---@class Bucket
---@field rate number tokens added per second
---@field burst number the most tokens the bucket holds
---@field tokens number tokens available now
---@field stamp number when `tokens` was last brought up to date
local Bucket = {}
Bucket.__index = Bucket

--- Makes a full bucket.
---@param rate number
---@param burst? number
---@return Bucket
function Bucket.new(rate, burst, now)
  assert(rate > 0, "rate must be positive")
  burst = burst or DEFAULT_BURST
  return setmetatable({ rate = rate, burst = burst, tokens = burst, stamp = now }, Bucket)
end

--- Brings the token count up to `now`.
function Bucket:refill(now)
  local elapsed = now - self.stamp
  if elapsed > 0 then
    self.tokens = clamp(self.tokens + elapsed * self.rate, 0, self.burst)
    self.stamp = now
  end
end

--- Takes `cost` tokens if there are enough; returns whether it did and the wait otherwise.
function Bucket:take(now, cost)
  cost = cost or 1
  self:refill(now)
  if self.tokens >= cost then
    self.tokens = self.tokens - cost
    return true, 0
  end
  local missing = cost - self.tokens
  return false, missing / self.rate
end

function Bucket:idle(now)
  return now - self.stamp > IDLE_SECONDS and self.tokens >= self.burst
end

M.Bucket = Bucket

---@class Limiter
local Limiter = {}
Limiter.__index = Limiter

--- A limiter over one bucket per key.
---@param opts table `rate`, `burst` and an optional `clock`
function M.new(opts)
  local self = setmetatable({}, Limiter)
  self.rate = opts.rate
  self.burst = opts.burst or DEFAULT_BURST
  self.clock = opts.clock or os.time
  self.buckets = {}
  self.stats = { allowed = 0, refused = 0 }
  return self
end

--- The bucket of `key`, made on first use.
function Limiter:bucket(key)
  local bucket = self.buckets[key]
  if not bucket then
    bucket = Bucket.new(self.rate, self.burst, self.clock())
    self.buckets[key] = bucket
  end
  return bucket
end

--- Whether a request for `key` may go ahead now.
---@return boolean allowed
---@return number retry_after seconds to wait when refused
function Limiter:allow(key, cost)
  local ok, wait = self:bucket(key):take(self.clock(), cost)
  if ok then
    self.stats.allowed = self.stats.allowed + 1
  else
    self.stats.refused = self.stats.refused + 1
  end
  return ok, wait
end

--- Drops idle buckets; returns how many went.
function Limiter:sweep()
  local now, dropped = self.clock(), 0
  for key, bucket in pairs(self.buckets) do
    if bucket:idle(now) then
      self.buckets[key] = nil
      dropped = dropped + 1
    end
  end
  return dropped
end

--- The headers a refused response carries.
function Limiter:headers(key)
  local bucket = self:bucket(key)
  local function header_value(n)
    return tostring(floor(n))
  end
  return {
    ["X-RateLimit-Limit"] = header_value(bucket.burst),
    ["X-RateLimit-Remaining"] = header_value(bucket.tokens),
  }
end

--- Formatters for the stats endpoint.
M.format = {
  --- One line of text.
  text = function(stats)
    return string.format("allowed=%d refused=%d", stats.allowed, stats.refused)
  end,
  json = function(stats)
    return cjson.encode({ allowed = stats.allowed, refused = stats.refused })
  end,
}

--- Wraps a handler so that refused requests get a 429.
---@param limiter Limiter
---@param key_of fun(request: table): string
function M.middleware(limiter, key_of, handler)
  return function(request, response)
    local key = key_of(request)
    local ok, wait = limiter:allow(key)
    if not ok then
      response.status = 429
      response.headers["Retry-After"] = tostring(math.ceil(wait))
      for name, value in pairs(limiter:headers(key)) do
        response.headers[name] = value
      end
      return response
    end
    return handler(request, response)
  end
end

--- Parses a rate written as `"10/s"`, `"600/m"` or `"3600/h"` into tokens per second.
function M.parse_rate(text)
  local count, unit = text:match("^(%d+)/([smh])$")
  if not count then
    return nil, "bad rate: " .. text
  end
  local per = { s = 1, m = 60, h = 3600 }
  return tonumber(count) / per[unit]
end

return M
