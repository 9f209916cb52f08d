// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import "./interfaces/IERC20.sol";
import {SafeTransfer} from "./libraries/SafeTransfer.sol";

/// @notice The longest a deposit can be locked for.
uint256 constant MAX_LOCK = 4 * 365 days;

/// @notice Thrown when a caller lacks the role a function needs.
error Unauthorized(address caller);

/// @title The events a vault emits, for indexers.
interface IVaultEvents {
    /// @notice A deposit was locked until `unlockAt`.
    event Locked(address indexed owner, uint256 indexed id, uint256 amount, uint64 unlockAt);

    event Withdrawn(address indexed owner, uint256 indexed id, uint256 amount);

    function lockedBalance(address owner) external view returns (uint256);
}

/// @title Arithmetic on lock periods.
library LockMath {
    /// @notice The penalty, in basis points, for leaving `remaining` seconds early.
    function earlyPenalty(uint256 remaining, uint256 period) internal pure returns (uint256) {
        if (period == 0) {
            return 0;
        }
        uint256 bps = (remaining * 5_000) / period;
        return bps > 5_000 ? 5_000 : bps;
    }

    function applyBps(uint256 amount, uint256 bps) internal pure returns (uint256) {
        return (amount * (10_000 - bps)) / 10_000;
    }
}

/// @title Owned: one owner who can hand over control.
abstract contract Owned {
    address public owner;

    event OwnerChanged(address indexed previous, address indexed next);

    /// @dev Reverts unless the owner calls.
    modifier onlyOwner() {
        if (msg.sender != owner) {
            revert Unauthorized(msg.sender);
        }
        _;
    }

    constructor(address initialOwner) {
        owner = initialOwner;
    }

    function transferOwnership(address next) external onlyOwner {
        emit OwnerChanged(owner, next);
        owner = next;
    }
}

/**
 * @title TimelockVault
 * @notice Holds one token; each deposit is locked for a chosen period.
 */
contract TimelockVault is Owned, IVaultEvents {
    using LockMath for uint256;

    /// @notice How a deposit stands.
    enum Status {
        Locked,
        Withdrawn,
        Forfeited
    }

    /// @notice One deposit.
    struct Deposit {
        address owner;
        uint128 amount;
        uint64 unlockAt;
        uint64 period;
        Status status;
    }

    uint256 public constant MIN_DEPOSIT = 1e15;

    IERC20 public immutable token;
    address public treasury;
    bool private paused;

    mapping(uint256 => Deposit) public deposits;
    mapping(address => uint256) private balances;
    uint256 private nextId = 1;

    error TooEarly(uint256 id, uint64 unlockAt);
    error NotYours(uint256 id);

    modifier whenNotPaused() {
        require(!paused, "paused");
        _;
    }

    constructor(IERC20 token_, address treasury_) Owned(msg.sender) {
        token = token_;
        treasury = treasury_;
    }

    /// @notice Locks `amount` for `period` seconds; returns the deposit's id.
    function deposit(uint128 amount, uint64 period) external whenNotPaused returns (uint256 id) {
        require(amount >= MIN_DEPOSIT, "too small");
        require(period <= MAX_LOCK, "too long");
        id = nextId++;
        uint64 unlockAt = uint64(block.timestamp) + period;
        deposits[id] = Deposit(msg.sender, amount, unlockAt, period, Status.Locked);
        balances[msg.sender] += amount;
        SafeTransfer.pull(token, msg.sender, amount);
        emit Locked(msg.sender, id, amount, unlockAt);
    }

    /// @notice Locks the default period of thirty days.
    function deposit(uint128 amount) external returns (uint256) {
        return this.deposit(amount, 30 days);
    }

    /// @notice Withdraws a deposit whose lock ended.
    function withdraw(uint256 id) external whenNotPaused {
        Deposit storage d = _owned(id);
        if (block.timestamp < d.unlockAt) {
            revert TooEarly(id, d.unlockAt);
        }
        _close(d, Status.Withdrawn);
        SafeTransfer.push(token, msg.sender, d.amount);
        emit Withdrawn(msg.sender, id, d.amount);
    }

    /// @notice Leaves early: the penalty goes to the treasury.
    function withdrawEarly(uint256 id) external whenNotPaused returns (uint256 paid) {
        Deposit storage d = _owned(id);
        uint256 remaining = d.unlockAt > block.timestamp ? d.unlockAt - block.timestamp : 0;
        uint256 bps = remaining.earlyPenalty(d.period);
        paid = uint256(d.amount).applyBps(bps);
        _close(d, Status.Forfeited);
        SafeTransfer.push(token, msg.sender, paid);
        SafeTransfer.push(token, treasury, d.amount - paid);
    }

    function lockedBalance(address who) external view override returns (uint256) {
        return balances[who];
    }

    function setPaused(bool value) external onlyOwner {
        paused = value;
    }

    receive() external payable {
        revert("no ether");
    }

    function _owned(uint256 id) private view returns (Deposit storage d) {
        d = deposits[id];
        if (d.owner != msg.sender || d.status != Status.Locked) {
            revert NotYours(id);
        }
    }

    function _close(Deposit storage d, Status status) private {
        d.status = status;
        balances[d.owner] -= d.amount;
    }
}
