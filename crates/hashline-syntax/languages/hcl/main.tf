# The web tier: a VPC with public and private subnets, an autoscaled
# application behind a load balancer, and the database it talks to.

terraform {
  required_version = ">= 1.6"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.40"
    }
  }

  backend "s3" {
    bucket = "tidewater-terraform-state"
    key    = "web/terraform.tfstate"
    region = "eu-west-1"
  }
}

provider "aws" {
  region = var.region

  default_tags {
    tags = local.common_tags
  }
}

# The region everything is created in.
variable "region" {
  type        = string
  description = "AWS region"
  default     = "eu-west-1"
}

variable "environment" {
  type        = string
  description = "Deployment environment: staging or production"

  validation {
    condition     = contains(["staging", "production"], var.environment)
    error_message = "The environment must be staging or production."
  }
}

variable "instance_type" {
  type    = string
  default = "t3.small"
}

/* Which ports the load balancer accepts, with the CIDRs allowed on each. */
variable "ingress_rules" {
  type = list(object({
    port        = number
    cidr_blocks = list(string)
  }))
  default = [
    { port = 80, cidr_blocks = ["0.0.0.0/0"] },
    { port = 443, cidr_blocks = ["0.0.0.0/0"] },
  ]
}

locals {
  name = "web-${var.environment}"
  # Tags every resource carries.
  common_tags = {
    Project     = "tidewater"
    Environment = var.environment
    ManagedBy   = "terraform"
  }
  azs = slice(data.aws_availability_zones.available.names, 0, 2)
}

data "aws_availability_zones" "available" {
  state = "available"
}

data "aws_ami" "app" {
  most_recent = true
  owners      = ["self"]

  filter {
    name   = "name"
    values = ["tidewater-web-*"]
  }
}

# The network: two public and two private subnets across two zones.
module "network" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "5.5.0"

  name            = local.name
  cidr            = "10.20.0.0/16"
  azs             = local.azs
  public_subnets  = ["10.20.1.0/24", "10.20.2.0/24"]
  private_subnets = ["10.20.11.0/24", "10.20.12.0/24"]

  enable_nat_gateway = true
  single_nat_gateway = var.environment != "production"
}

resource "aws_security_group" "lb" {
  name_prefix = "${local.name}-lb-"
  vpc_id      = module.network.vpc_id

  dynamic "ingress" {
    for_each = var.ingress_rules
    content {
      from_port   = ingress.value.port
      to_port     = ingress.value.port
      protocol    = "tcp"
      cidr_blocks = ingress.value.cidr_blocks
    }
  }

  egress {
    from_port   = 0
    to_port     = 0
    protocol    = "-1"
    cidr_blocks = ["0.0.0.0/0"]
  }

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_lb" "web" {
  name               = local.name
  load_balancer_type = "application"
  security_groups    = [aws_security_group.lb.id]
  subnets            = module.network.public_subnets
}

resource "aws_launch_template" "app" {
  name_prefix   = "${local.name}-"
  image_id      = data.aws_ami.app.id
  instance_type = var.instance_type

  // Boot script: starts the service with the environment's settings.
  user_data = base64encode(<<-EOT
    #!/bin/sh
    echo "ENVIRONMENT=${var.environment}" >> /etc/tidewater.env
    systemctl enable --now tidewater-web
  EOT
  )

  tag_specifications {
    resource_type = "instance"
    tags          = merge(local.common_tags, { Name = local.name })
  }
}

resource "aws_autoscaling_group" "app" {
  name_prefix         = "${local.name}-"
  min_size            = var.environment == "production" ? 2 : 1
  max_size            = 6
  vpc_zone_identifier = module.network.private_subnets

  launch_template {
    id      = aws_launch_template.app.id
    version = "$Latest"
  }

  instance_refresh {
    strategy = "Rolling"
    preferences {
      min_healthy_percentage = 50
    }
  }
}

resource "aws_db_instance" "main" {
  identifier_prefix   = "${local.name}-"
  engine              = "postgres"
  engine_version      = "16.2"
  instance_class      = "db.t4g.medium"
  allocated_storage   = 50
  skip_final_snapshot = var.environment != "production"
  deletion_protection = var.environment == "production"
  tags                = { for k, v in local.common_tags : k => v if k != "ManagedBy" }
}

# The address people use.
output "lb_dns_name" {
  description = "DNS name of the load balancer"
  value       = aws_lb.web.dns_name
}

output "db_endpoint" {
  value     = aws_db_instance.main.endpoint
  sensitive = true
}
