// The whole public API.
#pragma once

#include "relite/delegate.h"
#include "relite/interpreter.h"
#include "relite/kernel.h"
#include "relite/model.h"
#include "relite/op_resolver.h"
#include "relite/status.h"
#include "relite/tensor.h"
